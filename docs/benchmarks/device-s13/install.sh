#!/bin/bash
# Lays Debian 12's MariaDB 10.11 server and sysbench 1.0.20 out at their Debian paths on a
# machine that has neither, through wrappers that add only the shared libraries it lacks.
set -e
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /opt/mb; cp -r "$here" /opt/mb
for l in /opt/mb/lib/*; do
  if ldconfig -p | grep -q "^[[:space:]]*$(basename "$l") .*x86-64"; then rm "$l"; fi
done
echo "bundled libraries kept (missing here): $(ls /opt/mb/lib | tr '\n' ' ')"
for d in mysql sysbench; do
  if [ ! -e /usr/share/$d ]; then cp -r /opt/mb/share/$d /usr/share/$d; fi
done
font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf   # where myriad-bench looks first
if [ ! -e $font ] && [ -e /opt/mb/share/DejaVuSans.ttf ]; then
  mkdir -p $(dirname $font); cp /opt/mb/share/DejaVuSans.ttf $font
fi
wrap() { # wrap NAME DEST
  if [ -e "$2" ]; then echo "kept existing $2"; return; fi
  printf '#!/bin/sh\nLD_LIBRARY_PATH=/opt/mb/lib exec /opt/mb/bin/%s "$@"\n' "$1" > "$2"; chmod +x "$2"
}
wrap mariadbd /usr/sbin/mariadbd
wrap sysbench /usr/bin/sysbench
wrap my_print_defaults /usr/bin/my_print_defaults
wrap resolveip /usr/bin/resolveip
command -v taskset >/dev/null || wrap taskset /usr/bin/taskset
[ -e /usr/bin/mariadb-install-db ] || cp /opt/mb/bin/mariadb-install-db /usr/bin/
for b in mariadbd sysbench; do
  if LD_LIBRARY_PATH=/opt/mb/lib ldd /opt/mb/bin/$b | grep -E "not found|version .* not found"; then echo "missing libraries for $b"; exit 1; fi
done
/usr/sbin/mariadbd --version
/usr/bin/sysbench --version
