"""Gang exporter sources (the image ships only ``gang_exporter``)."""
