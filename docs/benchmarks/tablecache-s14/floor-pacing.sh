#!/bin/bash
# usage: floor-pacing.sh BIN (after tablecache-s12/setup.sh and big.sh, which writes /tmp/tp/f100.sql;
# session 14): the server's CPU time for the same 100,000 distinct SELECT k sent three ways by
# the mariadb CLI: one connection, 100 connections of 1,000, and the 100 chunks concatenated
# into one connection. Needs /tmp/tp/chunks: mkdir /tmp/tp/chunks && cd /tmp/tp/chunks &&
# split -l 1000 -d -a 3 <(tail -n +2 ../f100.sql) f_
B=$1; T=/tmp/tp
$B --port 14100 --datadir $T/data --table_open_cache=64 > $T/big.log 2>&1 & P=$!
M="mariadb -h127.0.0.1 -P14100 -uroot -Dd"
for i in $(seq 120); do $M -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
cpu() { awk '{print $14+$15}' /proc/$P/stat; }
for r in 1 2; do
c0=$(cpu); $M < $T/f100.sql > /dev/null; c1=$(cpu); echo "whole floor $(( (c1-c0)*10 )) ms"
fs=0; for c in $(seq -w 0 99); do c0=$(cpu); $M < $T/chunks/f_0$c > /dev/null; c1=$(cpu); fs=$((fs+c1-c0)); done; echo "chunked floor $((fs*10)) ms"
c0=$(cpu); cat $T/chunks/f_0* | $M > /dev/null; c1=$(cpu); echo "concatenated chunks, one connection $(( (c1-c0)*10 )) ms"
done
kill $P; wait $P
