#!/bin/bash
# Builds .devbundle/mb.tgz: Debian 12's mariadbd 10.11 and sysbench 1.0.20 with the shared
# libraries they need beyond glibc, their data files, taskset, and stripped release builds
# of myriad, myriad-bench and block_cache_sweep, and the plots' font, for a lent machine that has none of them
# and cannot install (nothing outside it can be reached). mb/install.sh lays them out at
# Debian's paths there behind wrappers that add only the libraries that machine lacks.
# Run from the repository root after
#   cargo build --release -p myriad -p myriad-bench --bins
#   cargo build --release -p myriad-cache --example block_cache_sweep
set -e
root=$(pwd)
tmp=$(mktemp -d)
mb=$tmp/mb
mkdir -p $mb/bin $mb/lib $mb/share $mb/myriad
cp /usr/sbin/mariadbd /usr/bin/sysbench /usr/bin/my_print_defaults /usr/bin/resolveip \
  /usr/bin/mariadb-install-db /usr/bin/taskset $mb/bin/
cp -r /usr/share/mysql /usr/share/sysbench $mb/share/
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf $mb/share/   # the plots' font
for l in $(ldd /usr/sbin/mariadbd /usr/bin/sysbench | awk '/=>/{print $3}' | sort -u); do
  case $(basename $l) in
    libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|libresolv*|ld-linux*) ;;
    *) cp -L $l $mb/lib/ ;;
  esac
done
for b in myriad myriad-bench; do strip -o $mb/myriad/$b target/release/$b; done
strip -o $mb/myriad/block_cache_sweep target/release/examples/block_cache_sweep
cp docs/benchmarks/device-s13/install.sh $mb/install.sh
mkdir -p $root/.devbundle
(cd $tmp && tar czf $root/.devbundle/mb.tgz mb)
rm -rf $tmp
grep -qx '/.devbundle/' .git/info/exclude 2>/dev/null || echo '/.devbundle/' >> .git/info/exclude
ls -la .devbundle/mb.tgz
