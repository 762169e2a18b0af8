# Tern: the two set-up commands are `make run` (the server on its embedded SQLite default) and
# `make test` (everything CI runs). Both install missing C libraries first (scripts/setup.sh).

DATA ?= .tern
HOST ?= 127.0.0.1
PORT ?= 8080

.PHONY: run test setup build format release docs api-baseline

run: setup
	swift build -c release --product tern
	.build/release/tern serve --host $(HOST) --port $(PORT) --data $(DATA)

test:
	scripts/test.sh

setup:
	scripts/setup.sh

build: setup
	swift build

release: setup
	swift build -c release

format:
	swift format format --in-place --recursive --parallel Sources Tests Package.swift Examples

# The DocC reference of the SDK (with its Apple-only API) and of the server, checked, as a static site
# in .build/docs/site (scripts/docs.sh).
docs: setup
	scripts/docs.sh

# Rewrites api-baseline/ from the current public API; commit it with the change that made it differ.
api-baseline: setup
	scripts/api-baseline.sh update
