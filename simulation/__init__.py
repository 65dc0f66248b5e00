"""What-if simulation and live load tests of an environment's job mix (``make simulate``, ``make loadtest``)."""
