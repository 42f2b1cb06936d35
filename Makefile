# The two commands of the README:
#   make example   set up everything, then run the Add kernel on the Model backend
#   make test      set up everything, then run all checks and tests
# (CI also runs `make hardening`: the sanitizer builds and the fuzzer.)
.PHONY: example test hardening setup build bench wheel clean

example: setup
	python3 examples/add.py -r Model -v Ascend910B1

test: setup
	scripts/test.sh

# ASan+UBSan suite, the fuzzer for a bounded time, TSan (CI runs it after `make test`; about 20 minutes).
hardening:
	scripts/hardening.sh

setup:
	scripts/setup.sh

build:
	cmake --build build

# The asc-model wheel from a clean clone, installed into a fresh venv and run there (build/wheel/ keeps it).
wheel: setup
	scripts/wheel_check.sh

bench: setup
	./build/bench/bench_launch
	python3 bench/bench.py

clean:
	rm -rf build python/asc/_lib
