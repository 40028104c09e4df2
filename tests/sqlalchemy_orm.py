"""SQLAlchemy's ORM against a running server (myriad or MariaDB, to compare the two).

Usage: python3 sqlalchemy_orm.py PORT|SOCKET

Creates database `sa`; create_all with a FOREIGN KEY ... ON DELETE CASCADE, a unique
column and a Boolean; reflects them back (inspect: tables, columns and their types,
foreign keys with their options, unique constraints, indexes); then ORM sessions (a
relationship with a cascade, an outer join with GROUP BY, a Boolean filter, a delete)
and the constraint at work from plain SQL. Prints what it saw, one line per fact, for the
caller to compare between servers; exits non-zero on an error.
"""
import sys
from sqlalchemy import create_engine, text, inspect, select, func, ForeignKey, String, Integer, Boolean, DateTime, Numeric
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, Session
from typing import List, Optional
import datetime, decimal

where = sys.argv[1]
url = f"mysql+pymysql://root:@127.0.0.1:{where}/sa" if where.isdigit() else f"mysql+pymysql://root:@localhost/sa?unix_socket={where}"
boot = create_engine(url.replace("/sa", "/", 1))
with boot.connect() as c:
    c.execute(text("DROP DATABASE IF EXISTS sa"))
    c.execute(text("CREATE DATABASE sa"))

class Base(DeclarativeBase):
    pass

class Author(Base):
    __tablename__ = "author"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(50), unique=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    books: Mapped[List["Book"]] = relationship(back_populates="author", cascade="all, delete-orphan")

class Book(Base):
    __tablename__ = "book"
    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(100))
    price: Mapped[decimal.Decimal] = mapped_column(Numeric(8, 2))
    published: Mapped[Optional[datetime.datetime]] = mapped_column(DateTime)
    author_id: Mapped[int] = mapped_column(ForeignKey("author.id", ondelete="CASCADE"))
    author: Mapped["Author"] = relationship(back_populates="books")

engine = create_engine(url)
Base.metadata.create_all(engine)
insp = inspect(engine)
print("tables:", insp.get_table_names())
print("book fks:", [(fk["constrained_columns"], fk["referred_table"], fk["referred_columns"], fk.get("options")) for fk in insp.get_foreign_keys("book")])
print("book columns:", [(c["name"], str(c["type"]), c["nullable"]) for c in insp.get_columns("book")])
print("author columns:", [(c["name"], str(c["type"]), c["nullable"]) for c in insp.get_columns("author")])
print("author unique:", insp.get_unique_constraints("author"))
print("book indexes:", insp.get_indexes("book"))
with Session(engine) as s:
    a = Author(name="Le Guin", books=[Book(title="Earthsea", price=decimal.Decimal("9.50"), published=datetime.datetime(1968, 1, 1, 12, 0)), Book(title="Lathe", price=decimal.Decimal("12.00"))])
    b = Author(name="Borges", active=False)
    s.add_all([a, b])
    s.commit()
    print("books per author:", s.execute(select(Author.name, func.count(Book.id)).outerjoin(Book).group_by(Author.name).order_by(Author.name)).all())
    print("inactive:", s.scalars(select(Author.name).where(Author.active == False)).all())
    s.delete(a)
    s.commit()
    print("books left:", s.scalar(select(func.count()).select_from(Book)))
with engine.connect() as c:
    c.execute(text("INSERT INTO author (id, name, active) VALUES (10, 'X', 1)"))
    c.execute(text("INSERT INTO book (title, price, author_id) VALUES ('t', 1, 10)"))
    c.execute(text("DELETE FROM author WHERE id = 10"))
    print("cascade on the database:", c.execute(text("SELECT COUNT(*) FROM book WHERE author_id = 10")).scalar())
    try:
        c.execute(text("INSERT INTO book (title, price, author_id) VALUES ('t', 1, 99)"))
    except Exception as e:
        print("orphan:", e.orig.args[0])
print("sqlalchemy: done")
