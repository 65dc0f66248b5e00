"""The discrete-event simulation: the environment's nodes, the 1.37 scheduling rules, the event loop."""
