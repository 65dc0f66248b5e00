"""A job mix as data: ``mixes/<name>.yaml`` and job traces, parsed and checked against an environment."""
