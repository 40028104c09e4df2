-- time_zone: SYSTEM and zero offsets are taken (and shown as MariaDB shows them); named
-- zones are unknown (1298) as in a MariaDB without time zone tables, and offsets out of
-- range too; NULL and numbers are refused as MariaDB refuses them. (A non-zero offset
-- answers 1235 in myriad: dates and times are computed in UTC.) CURTIME, CURRENT_TIME and
-- the UTC_ clock functions read the same clock as NOW().
SET time_zone = '+0:00'
SELECT @@time_zone
SET time_zone = '-00:00'
SELECT @@session.time_zone
SET time_zone = 'system'
SELECT @@time_zone
SET time_zone = 'UTC'
SET time_zone = 'Europe/Paris'
SET time_zone = '+14:00'
SET time_zone = '+1:60'
SET time_zone = '0:00'
SET time_zone = NULL
SET time_zone = 5
SET SESSION time_zone = '+00:00'
SELECT @@time_zone
SELECT CURTIME() = TIME(NOW()), CURRENT_TIME = CURTIME(), UTC_TIME() = CURTIME(), UTC_DATE = CURDATE(), UTC_TIMESTAMP() = NOW(), CURTIME(0) = CURTIME(), LENGTH(CURTIME()), UTC_DATE() = CURRENT_DATE
SELECT CURTIME(7)
