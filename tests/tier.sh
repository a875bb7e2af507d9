#!/bin/sh
# One tier of `make test`: runs the command, then says how long it took and how it ended, so a
# parallel run's log (make -j2 -O) names each tier's time. Usage: tests/tier.sh NAME COMMAND…
name=$1
shift
# The tier is not one of make's jobs: a `make` the tests start must not look for the jobserver of
# the `make -j2` that started this tier (it warns "jobserver unavailable" on its first line).
unset MAKEFLAGS MFLAGS MAKELEVEL
start=$(date +%s)
"$@"
status=$?
echo "make $name: $(($(date +%s) - start)) s, exit $status"
exit $status
