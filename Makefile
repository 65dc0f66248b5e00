# One entry point for people and CI. `make synth` and `make test` need only
# Python 3.11, Node.js and npm: everything else is installed from pinned files.

ENV ?= dev
CONFIG ?=
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
NODE_STAMP := node_modules/.installed-$(shell cat package-lock.json | cksum | cut -d' ' -f1)
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export PYTHONDONTWRITEBYTECODE := 1

SELECT := $(if $(CONFIG),--config $(CONFIG),--env $(ENV))
CDK_SELECT := $(if $(CONFIG),-c config=$(CONFIG),-c env=$(ENV))
CDK := npx --no-install cdk

.PHONY: help install synth render check test lint typecheck pytest cfn-lint freshness cdk-synth diff deploy destroy bench settings clean

help:  ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): requirements.txt
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11 or pass PYTHON=<path>"; exit 2; }
	rm -rf $(VENV) && $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(STAMP) $(NODE_STAMP)  ## Create .venv and node_modules from the pinned files

synth: $(STAMP)  ## Synthesize ENV (or CONFIG) into cdk.out/ and dist/<env>/
	$(PY) -m cli.synth $(SELECT)

test: lint typecheck pytest  ## The whole quality gate: lint, type check, tests (with cfn-lint and cdk-nag)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

pytest: $(STAMP)
	$(PY) -m pytest -q

cdk-synth: $(STAMP) $(NODE_STAMP)  ## cdk synth through cdk.json (the CDK CLI way)
	$(CDK) synth $(CDK_SELECT) --quiet

diff: $(STAMP) $(NODE_STAMP)  ## cdk diff ENV against the deployed stacks
	$(CDK) diff $(CDK_SELECT)

deploy: $(STAMP) $(NODE_STAMP)  ## cdk deploy ENV (needs AWS credentials)
	$(CDK) deploy $(CDK_SELECT) --all --require-approval broadening

destroy: $(STAMP) $(NODE_STAMP)  ## cdk destroy ENV
	$(CDK) destroy $(CDK_SELECT) --all --force

bench: $(STAMP)  ## Synthesis speed against a trivial CDK app, as ratios
	bash bench/synth.sh

settings: $(STAMP)  ## Regenerate the settings reference in README.md
	$(PY) -m config.reference --write README.md

clean:
	rm -rf cdk.out .pytest_cache .mypy_cache .ruff_cache
