"""Command-line entry points behind the Makefile."""
