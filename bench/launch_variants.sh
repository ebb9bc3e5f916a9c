#!/bin/sh
# launch_variants.sh - the launch path's host cost in builds that differ
# only in the launch path's C (run on the GPU machine, from the repository):
#   old      module/kernel.c and module/ufunc.c from build/variant_old/ (put
#            them there with `git show REV:module/kernel.c > ...`), the
#            compiler's default flags
#   noclash  the same with -fno-stack-clash-protection
#   new      the working tree as it is
# Each is copied to /tmp/cujit_variant_NAME and built there; then ROUNDS
# rounds run bench/launch_pin.py (C floor paired with cujit, unpinned) on
# every variant in turn, so that drift reaches them alike.
set -e
ROUNDS=${ROUNDS:-3}
PAIRS=${PAIRS:-8}
here=$(pwd)
for v in old noclash new; do
    d=/tmp/cujit_variant_$v
    rm -rf "$d" && mkdir -p "$d"
    tar --exclude=./build --exclude=./.git -cf - . | (cd "$d" && tar xf -)
    if [ "$v" != new ]; then
        cp "$here"/build/variant_old/module/kernel.c "$here"/build/variant_old/module/ufunc.c "$d"/module/
    fi
    flags="-O2 -g"
    [ "$v" = noclash ] && flags="-O2 -g -fno-stack-clash-protection"
    (cd "$d" && make CFLAGS="$flags" >/dev/null 2>&1) || { echo "build $v failed"; exit 1; }
    probes=$(objdump -d "$d"/cujit/_cujit*.so | grep -c 'orq \+\$0x0,(%rsp)' || true)
    echo "variant $v: CFLAGS=$flags, stack probes in the library: $probes"
done
for r in $(seq "$ROUNDS"); do
    for v in old noclash new; do
        (cd /tmp/cujit_variant_$v && PYTHONPATH=/tmp/cujit_variant_$v python3 bench/launch_pin.py \
            --pairs "$PAIRS" --places unpinned --label "$v r$r ")
    done
done
