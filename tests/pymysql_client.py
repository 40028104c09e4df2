"""PyMySQL against a running myriad.

Usage: python3 pymysql_client.py PORT

Connects, SET NAMES utf8mb4, text queries, parameterised statements re-executed with new
parameters (PyMySQL binds parameters on the client side; it has no server-side prepared
statements), multi-statement results, ping, change of database (COM_INIT_DB and USE),
a database given at connect, an interactive client's wait_timeout, and a wrong password rejected with 1045. Exits non-zero with
a message on the first failure.
"""
import sys

import pymysql
from pymysql.constants import CLIENT


def check(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


def main():
    port = int(sys.argv[1])
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                           charset="utf8mb4", client_flag=CLIENT.MULTI_STATEMENTS,
                           connect_timeout=10, read_timeout=20)
    with conn.cursor() as cur:
        cur.execute("SET NAMES utf8mb4")
        cur.execute("SELECT 1 + 1 AS two, CONCAT('caf', 'é') AS word, NULL AS nothing, 7 / 2 AS half")
        row = cur.fetchone()
        check(row[0], 2, "1 + 1")
        check(row[1], "café", "CONCAT with utf8mb4")
        check(row[2], None, "NULL")
        check(float(row[3]), 3.5, "7 / 2")
        check([d[0] for d in cur.description], ["two", "word", "nothing", "half"], "column names")

        cur.execute("SELECT @@version, @@max_allowed_packet")
        version, packet = cur.fetchone()
        if not version or int(packet) < 1024:
            raise AssertionError(f"connect-time variables: {version!r} {packet!r}")

        # The same statement many times with new parameters.
        for i in range(200):
            cur.execute("SELECT %s + 1, CONCAT('v', %s), %s IS NULL", (i, f"{i}-é", None if i % 5 == 0 else i))
            check(cur.fetchone(), (i + 1, f"v{i}-é", 1 if i % 5 == 0 else 0), f"execution {i}")

        # Several statements in one COM_QUERY: one result each.
        cur.execute("SELECT 1 AS a; SELECT 'two' AS b, 3 AS c")
        check(cur.fetchall(), ((1,),), "first result")
        check(cur.nextset(), True, "a second result exists")
        check(cur.fetchall(), (("two", 3),), "second result")
        check(cur.nextset(), None, "no third result")

        # Errors keep the connection usable.
        try:
            cur.execute("SELECT FROM WHERE")
            raise AssertionError("a syntax error was accepted")
        except pymysql.err.ProgrammingError as e:
            check(e.args[0], 1064, "syntax error code")

    conn.ping(reconnect=False)

    conn.select_db("mysql")
    with conn.cursor() as cur:
        cur.execute("SELECT DATABASE()")
        check(cur.fetchone(), ("mysql",), "database after COM_INIT_DB")
        cur.execute("USE information_schema")
        cur.execute("SELECT DATABASE()")
        check(cur.fetchone(), ("information_schema",), "database after USE")
        cur.execute("CREATE USER 'py'@'localhost' IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT ON mysql.* TO 'py'@'localhost'")
    conn.close()

    with pymysql.connect(host="127.0.0.1", port=port, user="py", password="pw", database="mysql") as conn2:
        with conn2.cursor() as cur:
            cur.execute("SELECT DATABASE(), CURRENT_USER()")
            db, user = cur.fetchone()
            check(db, "mysql", "database given at connect")

    # An interactive client's session wait_timeout starts at the global interactive_timeout
    # (read when it connects); another client's at wait_timeout.
    with pymysql.connect(host="127.0.0.1", port=port, user="root", password="") as admin:
        with admin.cursor() as cur:
            cur.execute("SET GLOBAL interactive_timeout = 1234")
        with pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                             client_flag=CLIENT.INTERACTIVE) as interactive:
            with interactive.cursor() as cur:
                cur.execute("SELECT @@session.wait_timeout, @@global.wait_timeout")
                check(cur.fetchone(), (1234, 28800), "interactive client's wait_timeout")
        with admin.cursor() as cur:
            cur.execute("SELECT @@session.wait_timeout")
            check(cur.fetchone(), (28800,), "non-interactive client's wait_timeout")
            cur.execute("SET GLOBAL interactive_timeout = DEFAULT")

    try:
        pymysql.connect(host="127.0.0.1", port=port, user="py", password="wrong")
        raise AssertionError("a wrong password was accepted")
    except pymysql.err.OperationalError as e:
        check(e.args[0], 1045, "wrong password error code")

    print("pymysql: all checks passed")


if __name__ == "__main__":
    main()
