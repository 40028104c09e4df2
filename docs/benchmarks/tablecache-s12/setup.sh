#!/bin/bash
# Prepares /tmp/tp for cg.sh: a myriad datadir with 100,000 one-column tables in database d,
# and the statement files (distinct SELECT k texts as the floor, SELECT * FROM tK).
# usage: setup.sh BIN
B=$1; mkdir -p /tmp/tp && cd /tmp/tp && rm -rf data && mkdir data
(echo "CREATE DATABASE d; USE d;"; for i in $(seq 100000); do echo "CREATE TABLE t$i (i INT);"; done) > create.sql
(echo "USE d;"; for i in $(seq 40000); do echo "SELECT $i;"; done) > floor.sql
(echo "USE d;"; for i in $(seq 20000); do echo "SELECT * FROM t$i;"; done) > s20.sql
head -20001 floor.sql > f20.sql; sed -n '1p;20002,40001p' floor.sql > f20b.sql
$B --port 14100 --datadir /tmp/tp/data > create.log 2>&1 & P=$!
for i in $(seq 60); do mariadb -h127.0.0.1 -P14100 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
mariadb -h127.0.0.1 -P14100 -uroot < create.sql; kill $P; wait $P
