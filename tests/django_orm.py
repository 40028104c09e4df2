"""Django's ORM against a running server (myriad or MariaDB, to compare the two).

Usage: python3 django_orm.py PORT|SOCKET

Creates database `djapp`, runs the migrations of Django's contenttypes, auth, sessions
and admin apps (CREATE TABLE with FOREIGN KEY and CHECK constraints, ALTER TABLE ADD
CONSTRAINT ... FOREIGN KEY, MODIFY, RENAME COLUMN, indexes), then uses the ORM: rows,
many-to-many links, a cascading delete, a transaction rolled back, and inspectdb (which
reads the foreign keys back through information_schema). Prints what it saw, one line per
fact, for the caller to compare between servers; exits non-zero on an error.
"""
import io
import sys

import pymysql

pymysql.install_as_MySQLdb()

import django  # noqa: E402
from django.conf import settings  # noqa: E402

where = sys.argv[1]
connection = {"HOST": "127.0.0.1", "PORT": int(where)} if where.isdigit() else {"HOST": where}
settings.configure(
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.mysql",
            "NAME": "djapp",
            "USER": "root",
            "PASSWORD": "",
            "OPTIONS": {"charset": "utf8mb4"},
            **connection,
        }
    },
    INSTALLED_APPS=[
        "django.contrib.contenttypes",
        "django.contrib.auth",
        "django.contrib.sessions",
        "django.contrib.admin",
        "django.contrib.messages",
    ],
    USE_TZ=True,
)
django.setup()

from django.contrib.auth.models import Group, Permission, User  # noqa: E402
from django.contrib.contenttypes.models import ContentType  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import IntegrityError, connection as db, transaction  # noqa: E402

raw = pymysql.connect(
    user="root", password="", **({"host": "127.0.0.1", "port": int(where)} if where.isdigit() else {"unix_socket": where})
)
with raw.cursor() as c:
    c.execute("DROP DATABASE IF EXISTS djapp")
    c.execute("CREATE DATABASE djapp")
raw.close()

call_command("migrate", verbosity=0)
print("tables:", sorted(db.introspection.table_names()))
print("content types:", ContentType.objects.count())
print("permissions:", Permission.objects.count())

editors = Group.objects.create(name="editors")
editors.permissions.add(*Permission.objects.order_by("codename")[:3])
ann = User.objects.create_user("ann", "ann@example.com", "pw")
bob = User.objects.create_user("bob", "bob@example.com", "pw")
ann.groups.add(editors)
bob.groups.add(editors)
print("editors:", list(User.objects.filter(groups__name="editors").order_by("username").values_list("username", flat=True)))
print("editor permissions:", editors.permissions.count())

# A link to a user that does not exist is refused by the foreign key.
try:
    with transaction.atomic():
        User.groups.through.objects.create(user_id=999, group_id=editors.id)
    print("orphan link: stored")
except IntegrityError as e:
    print("orphan link: refused", e.args[0])

# Deleting the group deletes its links (the constraints cascade on the database's side
# only where Django asks; Django deletes the links itself first).
editors.delete()
print("ann's groups after the delete:", ann.groups.count())

# A transaction rolled back leaves nothing.
try:
    with transaction.atomic():
        User.objects.create_user("carl", "carl@example.com", "pw")
        raise RuntimeError("roll back")
except RuntimeError:
    pass
print("users:", list(User.objects.order_by("username").values_list("username", flat=True)))

# Deleting a user that a row references through a RESTRICT constraint, behind Django's back.
with db.cursor() as c:
    c.execute("INSERT INTO auth_group (name) VALUES ('g2')")
    c.execute("SELECT id FROM auth_group WHERE name = 'g2'")
    g2 = c.fetchone()[0]
    c.execute("INSERT INTO auth_user_groups (user_id, group_id) VALUES (%s, %s)", [bob.id, g2])
    try:
        c.execute("DELETE FROM auth_user WHERE username = 'bob'")
        print("raw delete of a referenced user: done")
    except IntegrityError as e:
        print("raw delete of a referenced user: refused", e.args[0])

out = io.StringIO()
call_command("inspectdb", "auth_user_groups", "auth_permission", stdout=out)
print("inspectdb:")
for line in out.getvalue().splitlines():
    if line.strip() and not line.startswith("#"):
        print("  " + line)
print("django: done")
