"""What a team's run becomes: the gang plan, how its Pods launch, the API it needs, admission rules.

Everything the platform decides about a run lives here: the tier gives priority and preemption,
the template kind gives roles and launcher wiring; ``charts`` renders the plan.
"""
