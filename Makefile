# timerlab. `make` gives the first answer (fetch the base, build the variants' toolchains, run the
# headline matrix, write docs/results.md); `make full` runs the whole matrix; `make test` is what CI
# runs. See README.md.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
# TOOLCHAINS: the variants with a toolchain of their own; the aliases of variants.conf (series
# @TARGET) run with their target's, so they are neither built nor tested on their own here.
TOOLCHAINS := $(shell scripts/build-toolchain.sh --list)
# COMPARISONS: variants built only to be measured against a candidate, outside the gate, the first
# answer and the gate's exports: heap-release-alloc, the approach to golang/go#75935 that
# heap-release was measured against (docs/upstream.md).
COMPARISONS := heap-release-alloc
# GATE_SKIP: toolchains that make test (GATE=1, for each of its steps) neither builds nor tests,
# and make test-full does: timer-metrics, the metrics' CL series alone on pristine upstream, whose
# counters and test every toolchain of the shared series carries; the comparisons.
GATE_SKIP := timer-metrics $(COMPARISONS)
ifeq ($(GATE),1)
TOOLCHAINS := $(filter-out $(GATE_SKIP),$(TOOLCHAINS))
endif
TIMERLAB := go run ./cmd/timerlab
comma := ,
empty :=
space := $(empty) $(empty)

# The first answer: heap against the variants the open questions turn on. It runs the headline
# sets (`timerlab bench -h`): std-time's single operations, the timers against N, deadline churn,
# the wakeups and their precision. They hold the figures the report's verdict leads with. Its
# variants:
#   heap, the baseline; wheel, the timer set against N; slack, the windows;
#   pwait2-slack, the candidate for golang/go#53824;
#   pwait2, upstream's proposal it answers: heap's toolchain, on the sets the aliases run.
# wheel-slack, timer-metrics, heap-release, the comparisons, pristine upstream and the slack sweep
# run in `make full`. The null floor runs only the floor set, when named.
# A toolchain costs `make` about 13 minutes: its build, its cells, its instruction counts. `make`
# must end within an hour on 2 cores; README.md's table gives its measured time. Its results go
# where `timerlab report` looks for them by default.
FIRST_TOOLCHAINS := $(filter heap wheel slack pwait2-slack,$(TOOLCHAINS))
FIRST_VARIANTS := $(subst $(space),$(comma),$(FIRST_TOOLCHAINS)),pwait2
FIRST_RESULTS := $(or $(TIMERLAB_BUILD),build)/results-first
# The first answer's instructions per op (timerlab instr), which the verdict gives beside the times:
# the two single operations of its headline figures (StartStop1000, Reset/impl=func), counted with
# each toolchain of the first answer.
FIRST_INSTR := $(FIRST_RESULTS)-instr
FIRST_INSTR_BENCH := ^BenchmarkStartStop1000$$|^BenchmarkReset$$/^impl=func$$

.PHONY: all first full deps fetch toolchains first-toolchains bench report configs xbench test test-go check-series cross-check test-variants test-ports test-metrics test-harness test-exports test-exports-full test-layout test-full cross-check-full test-variants-full test-ports-full

all: first

# first: the first answer into build/results-first, and docs/results.md from it.
first: first-toolchains
	$(TIMERLAB) bench --sets headline --variants $(FIRST_VARIANTS) --out $(FIRST_RESULTS)
	$(TIMERLAB) instr --variants $(subst $(space),$(comma),$(FIRST_TOOLCHAINS)) --bench '$(FIRST_INSTR_BENCH)' --out $(FIRST_INSTR)
	$(TIMERLAB) report --results $(FIRST_RESULTS) --instr $(FIRST_INSTR)
	$(TIMERLAB) configs

# full: every variant and alias of variants.conf on every set but those of golang.org/x/benchmarks,
# into build/results, and docs/results.md from it (README.md gives its time).
full: toolchains bench report configs

deps:
	scripts/install-deps.sh

fetch: deps
	scripts/fetch-go.sh

toolchains: fetch
	for v in $(TOOLCHAINS); do scripts/build-toolchain.sh $$v; done

first-toolchains: fetch
	for v in $(FIRST_TOOLCHAINS); do scripts/build-toolchain.sh $$v; done

bench: toolchains
	$(TIMERLAB) bench

report:
	$(TIMERLAB) report

# configs: bent and sweet configuration files for the built toolchains (docs/benchmarks.md).
configs:
	$(TIMERLAB) configs

# xbench: sweet and bent (golang.org/x/benchmarks) and etcd's source at xbench.conf's pin, into build/xbench;
# TIMERLAB_XBENCH_SRC and TIMERLAB_ETCD_SRC name checkouts where the module proxy or github.com says no
# (docs/benchmarks.md). Only `timerlab bench --sets sweet-etcd,...` needs them; CI does not.
xbench:
	$(TIMERLAB) xbench

# The tests come in two tiers (docs/pipeline.md, "Two tiers of tests", says which catches what).
# test, the gate, is what CI runs (.ci/run): what catches a regression in what this project owns, in
# 22 minutes on 2 cores with the cache that building the toolchains leaves, 43 with a cold one
# (README). ci/steps.sh times each step and warns, in one line, when the total passes ci/budget,
# naming the steps that grew.
test:
	GATE=1 ci/steps.sh --budget ci/budget deps test-go check-series test-exports toolchains cross-check test-variants test-ports test-metrics test-layout test-harness

# test-full, the full tier: each of the gate's steps in its long form, and what the gate leaves out
# (pristine upstream's control run, the other users of timers, GOMAXPROCS=1,2,8 and -race, 386
# binaries, static lock ranking, the wheel's verify mode, every port of the cross-check, every qemu
# port at length). Hours on 2 cores; docs/go-tests.md records its last pass.
# test-full VARIANT=wheel: that variant's --full alone (scripts/test-variant.sh wheel --full).
ifeq ($(VARIANT),)
test-full:
	ci/steps.sh deps test-go check-series test-exports-full toolchains cross-check-full test-variants-full test-ports-full test-metrics test-layout test-harness
else
test-full: toolchains
	scripts/test-variant.sh $(VARIANT) --full
endif

test-go:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	go vet ./...
	go test -count=1 ./...
	cd bench && go vet ./... && go test -count=1 -bench . -benchtime=1x ./...

check-series: fetch
	scripts/check-series.sh

# test-exports: each patch set exported as a CL series (scripts/export-cl.sh), applied with git am
# onto pristine go1.27.4 and built with the release's commands (scripts/check-exports.sh).
# test-exports-full: also vetted, with std built, and for five more ports.
# The gate leaves out the comparisons' exports (not candidates); test-exports-full checks every set.
EXPORT_SETS := $(filter-out $(COMPARISONS),$(shell source scripts/lib.sh && patch_sets))
test-exports: fetch
	scripts/check-exports.sh $(EXPORT_SETS)

test-exports-full: fetch
	scripts/check-exports.sh --full

# test-layout: heap's timer must keep upstream's layout, field for field (internal/layout reads
# both toolchains' DWARF).
test-layout: toolchains
	TIMERLAB_LAYOUT=1 go test -count=1 ./internal/layout

# cross-check: the series on other ports: both experiments vetted and built for darwin/arm64 and
# windows/amd64, every overlay file of another OS (scripts/cross-check.sh). cross-check-full: every
# port and experiment set that no other step of test-full builds (--full).
cross-check: toolchains
	scripts/cross-check.sh

cross-check-full: toolchains
	scripts/cross-check.sh --full

# test-variants: Go's timer tests gate every toolchain of ours, once each, -short (--quick), and
# slack's once more with its deferral on (the alias slack-defer), which is off by default.
# test-variants-full: every toolchain's --full, pristine upstream's included: a control, since a
# failure there is the machine's, not a variant's.
GATE_TOOLCHAINS := $(filter-out upstream,$(TOOLCHAINS))
test-variants: toolchains
	for v in $(GATE_TOOLCHAINS); do scripts/test-variant.sh $$v --quick; done
	scripts/test-variant.sh slack-defer --quick

test-variants-full: toolchains
	for v in $(TOOLCHAINS); do scripts/test-variant.sh $$v --full; done

# test-ports: the timer tests of the variants whose code differs across ports (slack's deferral and
# its SIGURG guard, the wheel's words and locks) as binaries of other ports under qemu-user
# (scripts/test-ports.sh): in the gate, slack and wheel-slack on one 32-bit port whose 64-bit
# atomics take spinlocks, -short; in test-full, slack, wheel and wheel-slack on every port, at length.
PORT_VARIANTS := slack wheel wheel-slack
GATE_PORT_VARIANTS := slack wheel-slack
test-ports: toolchains
	for v in $(GATE_PORT_VARIANTS); do scripts/test-ports.sh $$v --quick; done

test-ports-full: toolchains
	for v in $(PORT_VARIANTS); do scripts/test-ports.sh $$v --full; done

# test-metrics: bench/internal/timerstats reads the /sched/timers/ metrics, which the host's Go lacks
# (there its test skips): its tests run with every built toolchain, whose metrics they must read as
# that toolchain describes them (pristine upstream: none).
test-metrics: toolchains
	for v in $(TOOLCHAINS); do \
		tc=$(CURDIR)/build/toolchains/$$v; \
		echo "==> bench/internal/timerstats with $$v"; \
		(cd bench && env -u GOEXPERIMENT GOROOT=$$tc PATH="$$tc/bin:$$PATH" GOTOOLCHAIN=local GOFLAGS= GOWORK=off \
			go test -count=1 ./internal/timerstats) || exit 1; \
	done

# test-harness: the quick matrix on two real toolchains; its outputs must parse and its report render.
test-harness: toolchains
	rm -rf build/results/ci-quick
	$(TIMERLAB) bench --quick --variants heap,upstream --out build/results/ci-quick
	$(TIMERLAB) report --results build/results/ci-quick --docs build/results/ci-quick/report
	$(TIMERLAB) verify --docs build/results/ci-quick/report build/results/ci-quick
