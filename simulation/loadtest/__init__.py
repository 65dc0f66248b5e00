"""Live load tests: a mix, scaled down in time, submitted to a real cluster as rendered team runs."""
