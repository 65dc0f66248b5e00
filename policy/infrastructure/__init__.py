"""Plans of the cluster's infrastructure, as plain data: node groups, Karpenter pools, EFA, add-on values.

Also which images an environment deploys, which node groups a change replaces, how many gang Pods a
topology domain can hold, and which applied objects must never be pruned. ``stacks`` turns these
into constructs.
"""
