"""An environment as the platform accepts it: the model from ``config`` plus the rules that need plans.

``config`` parses a file into a typed model and checks each field on its own; the cross-field rules
that need a plan (node groups, Karpenter pools, gates, gang names) live here, above the model, and
``load_environment`` runs both. Team and run files, per-run copies of ephemeral environments and
acknowledged risks are here too.
"""
