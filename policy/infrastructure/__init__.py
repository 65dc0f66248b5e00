"""Plans of the cluster's infrastructure, as plain data: node groups, EFA, device classes, capacity.

Also which images an environment deploys, which node groups a change replaces, how many gang Pods a
topology domain can hold, and which applied objects must never be pruned. ``stacks`` turns these
into constructs. An add-on's own plans and values (Karpenter's pools, a chart's values) are in its
``addons/<name>/`` folder.
"""
