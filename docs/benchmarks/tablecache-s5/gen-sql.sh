#!/bin/bash
# The statement files cell.sh / cellN.sh read, in /tmp/tablecache-prof (20,000) and its big/ (100,000).
mkdir -p /tmp/tablecache-prof/big && cd /tmp/tablecache-prof
gen() { python3 -c "import sys
for i in range($1, $2): print(sys.argv[1].format(i=i))" "$3"; }
gen 0 20000 'create table d.t{i} (a int);' > create.sql
gen 20000 100000 'create table d.t{i} (a int);' > create80k.sql
gen 0 20000 'select {i};' > floor.sql
gen 0 20000 'select * from d.t{i};' > select.sql
gen 0 20000 'insert into d.t{i} values ({i});' > insert.sql
gen 0 100000 'select {i};' > big/floor.sql
gen 0 100000 'select * from d.t{i};' > big/select.sql
gen 0 100000 'insert into d.t{i} values ({i});' > big/insert.sql
# Then: start myriad on port 14100 with --datadir /tmp/tablecache-prof/data, run
# `mariadb -h127.0.0.1 -P14100 -uroot -e 'create database d'` and `< create.sql`, stop it.
