"""Reference data the platform is built from: versions, instance types, feature gates."""
