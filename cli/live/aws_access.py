"""``make deploy``/``diff``/``destroy`` ask first whether any AWS credentials are set, and say what to set.

The CDK CLI, run without credentials, prints its own message (twice: once for the environment lookup,
once for the failure) and nothing about where credentials come from. This check runs before it and
reads only the local credential chain (botocore's: environment variables, ``AWS_PROFILE`` and the
shared files, SSO, a credential process, container and instance credentials), without calling AWS:
when nothing is found it prints one line (what to set, and ``cdk bootstrap`` once per account and
region) and exits 2. Credentials that AWS refuses are still the CDK's to report.
"""

from __future__ import annotations

import argparse
import sys

from cli.environment_args import add_environment_args, load_selected
from config.errors import ConfigError
from config.model import EnvironmentConfig


def missing_credentials_line(command: str, env: EnvironmentConfig, *, profile: str | None) -> str:
    """The one line a CDK command without credentials prints."""
    account = env.account or "<account>"
    where = f"profile {profile!r} has none" if profile else "none found"
    return (
        f"error: make {command}: no AWS credentials ({where}); fix: set AWS_PROFILE=<profile> "
        "(after 'aws configure' or 'aws sso login'), or export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; "
        f"once per account and region, run 'npx cdk bootstrap aws://{account}/{env.region}'"
    )


def has_credentials() -> tuple[bool, str | None]:
    """Whether botocore's credential chain resolves anything, and the profile it read."""
    import botocore.exceptions
    import botocore.session

    session = botocore.session.Session()
    profile = session.profile
    try:
        found = session.get_credentials() is not None
    except botocore.exceptions.BotoCoreError:  # a broken profile, a failing credential process, ...
        found = False
    return found, profile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("deploy", "diff", "destroy"), help="the make target about to run")
    add_environment_args(parser)
    args = parser.parse_args(argv)
    try:
        env = load_selected(args)
    except ConfigError as error:
        return error.report()
    found, profile = has_credentials()
    if not found:
        print(missing_credentials_line(args.command, env, profile=profile), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
