"""How a gang's Pods start and find each other: launcher commands, environment, names, hostfiles."""
