-- CONVERT_TZ with offsets and SYSTEM; zone names are NULL while no time zone tables are
-- loaded (Django asks this of every connection).
select convert_tz('2001-01-01 01:00:00', 'UTC', 'UTC') is not null
select convert_tz('2001-01-01 01:00:00', '+00:00', '+02:30')
select convert_tz('2001-01-01 01:00:00', '-05:00', '+01:00')
select convert_tz('2001-01-01 01:00:00', 'SYSTEM', '+01:00')
select convert_tz(null, '+00:00', '+01:00'), convert_tz('2001-01-01 01:00:00', null, '+01:00')
select convert_tz('2001-01-01 01:00:00', 'bogus', '+01:00')
select convert_tz('2001-01-01 01:00:00', '+00:00', '+14:00'), convert_tz('2001-01-01 01:00:00', '+00:00', '-13:00')
select convert_tz('not a date', '+00:00', '+01:00')
select convert_tz(cast('2001-12-31 23:30:00' as datetime), '+00:00', '+01:00')
select convert_tz(cast('2001-12-31 23:30:00.25' as datetime(2)), '+00:00', '+01:00')
select convert_tz('9999-12-31 23:30:00', '+00:00', '+01:00')
