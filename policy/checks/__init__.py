"""Checks over the rendered platform (``make check``): one module per check, each a pure function.

Each check takes the environment and its whole rendered object set and returns ``Check`` results
(``policy.results``); ``suite.run_checks`` runs them all. ``api_order`` is the API-before-use
property over a synthesized template. (The admission rules the schemas miss are ``policy.gangs.workload_rules``.)
"""
