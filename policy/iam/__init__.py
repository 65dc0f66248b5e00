"""IAM policy documents, as plain dicts: what ``stacks`` attaches to roles."""
