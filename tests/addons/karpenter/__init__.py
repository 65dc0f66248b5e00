"""Tests for Karpenter as a GPU capacity provider: config rules, objects against the CRDs, the stack."""
