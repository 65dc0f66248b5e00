"""CDK deployment units and the constructs they wire."""
