cd /tmp/tablecache-prof
export N=100000 SQLDIR=big/ EXTRA=--key_buffer_size=16777216
./cellN.sh /tmp/tablecache-old-myriad 64 K16-100k-r2
./cellN.sh /tmp/tablecache-old-myriad 16384 K16-100k-r2
EXTRA= ./cellN.sh /tmp/tablecache-old-myriad 16384 K128-100k
uptime
