"""PyMySQL: every byte value survives a binary column, and invalid UTF-8 is refused by a
text column.

Usage: python3 pymysql_binary.py PORT

PyMySQL binds bytes on the client side as `_binary'...'` with the raw bytes between the
quotes (only \\0 \\n \\r \\Z ' " \\ escaped), so the statement it sends is not UTF-8: the
server must read those bytes as they are. Each of BLOB, VARBINARY and BINARY gets all 256
byte values, single bytes 0x00..0xFF one row each, and an invalid UTF-8 value; SELECT must
give back the same bytes, and HEX() on the server must agree. A utf8mb4 column given
invalid UTF-8 must fail with 1366 and store nothing. Exits non-zero on the first failure.
"""
import sys

import pymysql


def check(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


ALL_BYTES = bytes(range(256))
INVALID_UTF8 = b"\xff\xfe\xc3\x28\xe2\x82\x00\x80end"


def main():
    port = int(sys.argv[1])
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                           charset="utf8mb4", connect_timeout=10, read_timeout=20,
                           autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE bytes_py")
        cur.execute("USE bytes_py")
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY, bl BLOB, vb VARBINARY(300),"
                    " bi BINARY(12))")
        values = [(1, ALL_BYTES, ALL_BYTES, INVALID_UTF8), (2, INVALID_UTF8, INVALID_UTF8, b"")]
        values += [(10 + b, bytes([b]), bytes([b]), bytes([b])) for b in range(256)]
        cur.executemany("INSERT INTO t VALUES (%s, %s, %s, %s)", values)
        cur.execute("SELECT id, bl, vb, bi, HEX(bl) FROM t ORDER BY id")
        rows = cur.fetchall()
        check(len(rows), len(values), "rows read back")
        for (id_, bl, vb, bi), row in zip(values, rows):
            check(row[0], id_, "row order")
            check(row[1], bl, f"BLOB of row {id_}")
            check(row[2], vb, f"VARBINARY of row {id_}")
            check(row[3], bi.ljust(12, b"\x00"), f"BINARY(12) of row {id_}")
            check(row[4], bl.hex().upper(), f"HEX(BLOB) of row {id_}")

        # A parameter compared on the server finds its row.
        cur.execute("SELECT id FROM t WHERE vb = %s", (INVALID_UTF8,))
        check(cur.fetchall(), ((2,),), "lookup by an invalid UTF-8 value")

        cur.execute("CREATE TABLE s (id INT PRIMARY KEY, c VARCHAR(20), x TEXT)"
                    " DEFAULT CHARSET=utf8mb4")
        for column in ("c", "x"):
            try:
                cur.execute(f"INSERT INTO s (id, {column}) VALUES (1, %s)", (b"ab\xffcd",))
                raise AssertionError(f"invalid UTF-8 was stored in {column}")
            except pymysql.err.MySQLError as e:
                check(e.args[0], 1366, f"error code for invalid UTF-8 into {column}")
                check(e.args[1], "Incorrect string value: '\\xFFcd' for column "
                      f"`bytes_py`.`s`.`{column}` at row 1", "message")
        cur.execute("SELECT COUNT(*) FROM s")
        check(cur.fetchone(), (0,), "nothing stored after 1366")
        cur.execute("INSERT INTO s VALUES (2, %s, %s)", ("ÿé€😀", "ÿé€😀"))
        cur.execute("SELECT c, x FROM s")
        check(cur.fetchone(), ("ÿé€😀", "ÿé€😀"), "valid UTF-8 stored")
    conn.close()
    print("pymysql binary: all checks passed")


if __name__ == "__main__":
    main()
