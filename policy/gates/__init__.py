"""Feature gates: rules over the registry in ``catalog.feature_gates``, and which gates an object needs."""
