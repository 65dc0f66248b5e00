"""Platform policy as small pure functions: no CDK or cdk8s imports here."""
