# The two commands of the README:
#   make example   set up everything, then run the Add kernel on the Model backend
#   make test      set up everything, then run all checks and tests
.PHONY: example test setup build bench clean

example: setup
	python3 examples/add.py -r Model -v Ascend910B1

test: setup
	scripts/test.sh

setup:
	scripts/setup.sh

build:
	cmake --build build

bench: setup
	./build/bench/bench_launch
	python3 bench/bench.py

clean:
	rm -rf build python/asc/_lib
