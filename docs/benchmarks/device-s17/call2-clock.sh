#!/bin/bash
# Session 17, second call: is a clock read cheap there (a vDSO read of the TSC) or a system
# call? The low hit ratio's cache-on cells read the clock once more per SELECT than cache off.
cat /sys/devices/system/clocksource/clocksource0/current_clocksource \
    /sys/devices/system/clocksource/clocksource0/available_clocksource
uname -r; grep -m1 "model name" /proc/cpuinfo; dmesg 2>/dev/null | grep -i clocksource | tail -3
