-- SELECT DISTINCT: one row per group of equal rows, equal as GROUP BY finds them (each
-- column's collation: case and trailing spaces ignored, binary strings byte by byte;
-- numbers by value; NULLs equal), the first row met of each group, in the order met.
-- LIMIT and OFFSET count distinct rows, so a LIMIT without ORDER BY shows the order met.
-- The second half runs the same statements with tmp_table_size = max_heap_table_size =
-- 1024, where DISTINCT spills to disk, and must answer the same.
DROP DATABASE IF EXISTS distinct_test
CREATE DATABASE distinct_test
USE distinct_test
CREATE TABLE s (id INT PRIMARY KEY, a VARCHAR(10), b VARBINARY(10), c CHAR(5))
INSERT INTO s VALUES (1, 'a', 'a', 'x'), (2, 'A', 'A', 'X '), (3, 'b', 'a ', 'x'), (4, 'a ', 'a', 'y'), (5, NULL, NULL, NULL), (6, 'B', 'b', 'Y'), (7, NULL, 'B', NULL), (8, 'é', 'é', 'E'), (9, 'É', 'É', 'e')
CREATE TABLE n (id INT PRIMARY KEY, i INT, d DECIMAL(5,2), f DOUBLE, t VARCHAR(5))
INSERT INTO n VALUES (1, 1, 1.0, 1, '1'), (2, 1, 1.00, 1.0, '1.0'), (3, 2, 2.5, -0.0, '01'), (4, 2, 2.50, 0, ' 1'), (5, NULL, NULL, NULL, NULL), (6, 3, -0.0, 2.5, '1 ')
CREATE TABLE j (k INT, label VARCHAR(10))
INSERT INTO j VALUES (1, 'one'), (1, 'ONE'), (2, 'two'), (2, 'Two '), (3, NULL), (NULL, 'none')
SELECT DISTINCT a FROM s
SELECT DISTINCT a FROM s LIMIT 2
SELECT DISTINCT a FROM s LIMIT 1, 2
SELECT DISTINCT a FROM s LIMIT 2 OFFSET 3
SELECT DISTINCT a FROM s LIMIT 0
SELECT DISTINCT a FROM s ORDER BY a
SELECT DISTINCT a FROM s ORDER BY a DESC
SELECT DISTINCT a FROM s ORDER BY a DESC LIMIT 1, 1
SELECT DISTINCT a FROM s ORDER BY id
SELECT DISTINCT a FROM s ORDER BY HEX(a)
SELECT DISTINCT b FROM s
SELECT DISTINCT b FROM s LIMIT 1, 3
SELECT DISTINCT c FROM s
SELECT DISTINCT c FROM s LIMIT 2
SELECT DISTINCT a, c FROM s
SELECT DISTINCT a, b FROM s
SELECT DISTINCT LOWER(a) FROM s
SELECT DISTINCT UPPER(a) FROM s LIMIT 2
SELECT DISTINCT CONCAT(a, 'x') FROM s
SELECT DISTINCT a, 1 FROM s
SELECT DISTINCT a FROM s WHERE id > 1
SELECT DISTINCT a IS NULL FROM s
SELECT DISTINCT i FROM n
SELECT DISTINCT d FROM n
SELECT DISTINCT f FROM n
SELECT DISTINCT t FROM n
SELECT DISTINCT t FROM n LIMIT 3
SELECT DISTINCT i, d FROM n
SELECT DISTINCT i + 0.0 FROM n
SELECT DISTINCT IF(i = 1, i, t) FROM n
SELECT DISTINCT IF(i = 1, d, f) FROM n
SELECT DISTINCT IF(id < 3, '1', 1) FROM n
SELECT DISTINCT i * 2 FROM n ORDER BY 1 DESC
SELECT DISTINCT label FROM j
SELECT DISTINCT j.label FROM s JOIN j ON j.k = s.id
SELECT DISTINCT j.label FROM s JOIN j ON j.k = s.id LIMIT 1, 1
SELECT DISTINCT s.a, j.k FROM s JOIN j ON j.k <= s.id WHERE s.id < 4
SELECT DISTINCT s.a FROM s LEFT JOIN j ON j.k = s.id ORDER BY s.a
SELECT DISTINCT j.label FROM s LEFT JOIN j ON j.k = s.id
SELECT DISTINCT k, COUNT(*) FROM j GROUP BY k
SELECT DISTINCT COUNT(*) FROM j GROUP BY k
SELECT DISTINCT COUNT(*) FROM j GROUP BY k ORDER BY 1
SELECT DISTINCT MAX(label) FROM j GROUP BY k
SELECT DISTINCT COUNT(*) FROM s
SELECT DISTINCT COUNT(DISTINCT a), COUNT(*) FROM s
SET SESSION tmp_table_size = 1024
SET SESSION max_heap_table_size = 1024
CREATE TABLE big (id INT PRIMARY KEY, g INT, w VARCHAR(40))
INSERT INTO big VALUES (1, 1, 'alpha'), (2, 2, 'Beta'), (3, 3, 'gamma'), (4, 1, 'ALPHA '), (5, 4, 'delta'), (6, 5, 'epsilon'), (7, 6, 'zeta'), (8, 7, 'eta'), (9, 8, 'theta'), (10, 9, 'iota'), (11, 10, 'kappa'), (12, 11, 'lambda'), (13, 12, 'mu'), (14, 13, 'nu'), (15, 14, 'xi'), (16, 15, 'omicron'), (17, 16, 'pi'), (18, 17, 'rho'), (19, 18, 'sigma'), (20, 19, 'tau'), (21, 20, 'upsilon'), (22, 21, 'phi'), (23, 22, 'chi'), (24, 23, 'psi'), (25, 24, 'omega'), (26, 25, 'alpha two'), (27, 26, 'Beta two'), (28, 27, 'gamma two'), (29, 25, 'ALPHA  two'), (30, 28, 'delta two'), (31, 29, 'epsilon two'), (32, 30, 'zeta two'), (33, 31, 'eta two'), (34, 32, 'theta two'), (35, 33, 'iota two'), (36, 34, 'kappa two'), (37, 35, 'lambda two'), (38, 36, 'mu two'), (39, 37, 'nu two'), (40, 38, 'xi two'), (41, 39, 'omicron two'), (42, 40, 'pi two'), (43, 41, 'rho two'), (44, 42, 'sigma two'), (45, 43, 'tau two'), (46, 44, 'upsilon two'), (47, 45, 'phi two'), (48, 46, 'chi two'), (49, 47, 'psi two'), (50, 48, 'omega two'), (51, 1, 'ALPHA'), (52, 2, 'BETA'), (53, 3, 'GAMMA'), (54, 1, 'ALPHA '), (55, 4, 'DELTA'), (56, 5, 'EPSILON'), (57, 6, 'ZETA'), (58, 7, 'ETA'), (59, 8, 'THETA'), (60, 9, 'IOTA'), (61, 10, 'KAPPA'), (62, 11, 'LAMBDA'), (63, 12, 'MU'), (64, 13, 'NU'), (65, 14, 'XI'), (66, 15, 'OMICRON'), (67, 16, 'PI'), (68, 17, 'RHO'), (69, 18, 'SIGMA'), (70, 19, 'TAU'), (71, 20, 'UPSILON'), (72, 21, 'PHI'), (73, 22, 'CHI'), (74, 23, 'PSI'), (75, 24, 'OMEGA'), (76, 25, 'ALPHA TWO'), (77, 26, 'BETA TWO'), (78, 27, 'GAMMA TWO'), (79, 25, 'ALPHA  TWO'), (80, 28, 'DELTA TWO'), (81, 29, 'EPSILON TWO'), (82, 30, 'ZETA TWO'), (83, 31, 'ETA TWO'), (84, 32, 'THETA TWO'), (85, 33, 'IOTA TWO'), (86, 34, 'KAPPA TWO'), (87, 35, 'LAMBDA TWO'), (88, 36, 'MU TWO'), (89, 37, 'NU TWO'), (90, 38, 'XI TWO'), (91, 39, 'OMICRON TWO'), (92, 40, 'PI TWO'), (93, 41, 'RHO TWO'), (94, 42, 'SIGMA TWO'), (95, 43, 'TAU TWO'), (96, 44, 'UPSILON TWO'), (97, 45, 'PHI TWO'), (98, 46, 'CHI TWO'), (99, 47, 'PSI TWO'), (100, 48, 'OMEGA TWO'), (101, 1, 'alpha  '), (102, 2, 'beta  '), (103, 3, 'gamma  '), (104, 1, 'alpha   '), (105, 4, 'delta  '), (106, 5, 'epsilon  '), (107, 6, 'zeta  '), (108, 7, 'eta  '), (109, 8, 'theta  '), (110, 9, 'iota  '), (111, 10, 'kappa  '), (112, 11, 'lambda  '), (113, 12, 'mu  '), (114, 13, 'nu  '), (115, 14, 'xi  '), (116, 15, 'omicron  '), (117, 16, 'pi  '), (118, 17, 'rho  '), (119, 18, 'sigma  '), (120, 19, 'tau  '), (121, 20, 'upsilon  '), (122, 21, 'phi  '), (123, 22, 'chi  '), (124, 23, 'psi  '), (125, 24, 'omega  '), (126, 25, 'alpha two  '), (127, 26, 'beta two  '), (128, 27, 'gamma two  '), (129, 25, 'alpha  two  '), (130, 28, 'delta two  '), (131, 29, 'epsilon two  '), (132, 30, 'zeta two  '), (133, 31, 'eta two  '), (134, 32, 'theta two  '), (135, 33, 'iota two  '), (136, 34, 'kappa two  '), (137, 35, 'lambda two  '), (138, 36, 'mu two  '), (139, 37, 'nu two  '), (140, 38, 'xi two  '), (141, 39, 'omicron two  '), (142, 40, 'pi two  '), (143, 41, 'rho two  '), (144, 42, 'sigma two  '), (145, 43, 'tau two  '), (146, 44, 'upsilon two  '), (147, 45, 'phi two  '), (148, 46, 'chi two  '), (149, 47, 'psi two  '), (150, 48, 'omega two  '), (151, 1, 'alpha  '), (152, 2, 'beta  '), (153, 3, 'gamma  '), (154, 1, 'alpha   '), (155, 4, 'delta  '), (156, 5, 'epsilon  '), (157, 6, 'zeta  '), (158, 7, 'eta  '), (159, 8, 'theta  '), (160, 9, 'iota  '), (161, 10, 'kappa  '), (162, 11, 'lambda  '), (163, 12, 'mu  '), (164, 13, 'nu  '), (165, 14, 'xi  '), (166, 15, 'omicron  '), (167, 16, 'pi  '), (168, 17, 'rho  '), (169, 18, 'sigma  '), (170, 19, 'tau  '), (171, 20, 'upsilon  '), (172, 21, 'phi  '), (173, 22, 'chi  '), (174, 23, 'psi  '), (175, 24, 'omega  '), (176, 25, 'alpha two  '), (177, 26, 'beta two  '), (178, 27, 'gamma two  '), (179, 25, 'alpha  two  '), (180, 28, 'delta two  '), (181, 29, 'epsilon two  '), (182, 30, 'zeta two  '), (183, 31, 'eta two  '), (184, 32, 'theta two  '), (185, 33, 'iota two  '), (186, 34, 'kappa two  '), (187, 35, 'lambda two  '), (188, 36, 'mu two  '), (189, 37, 'nu two  '), (190, 38, 'xi two  '), (191, 39, 'omicron two  '), (192, 40, 'pi two  '), (193, 41, 'rho two  '), (194, 42, 'sigma two  '), (195, 43, 'tau two  '), (196, 44, 'upsilon two  '), (197, 45, 'phi two  '), (198, 46, 'chi two  '), (199, 47, 'psi two  '), (200, 48, 'omega two  ')
SELECT COUNT(*) FROM big
SELECT DISTINCT w FROM big
SELECT DISTINCT w FROM big LIMIT 10, 5
SELECT DISTINCT w FROM big LIMIT 40, 100
SELECT DISTINCT w FROM big ORDER BY w
SELECT DISTINCT w FROM big ORDER BY w DESC LIMIT 3, 4
SELECT DISTINCT g, w FROM big
SELECT DISTINCT g, w FROM big LIMIT 30, 10
SELECT DISTINCT g FROM big ORDER BY g DESC
SELECT DISTINCT UPPER(w), g FROM big LIMIT 5, 5
SELECT DISTINCT a FROM s
SELECT DISTINCT a FROM s LIMIT 1, 2
SELECT DISTINCT b FROM s
SELECT DISTINCT b FROM s LIMIT 1, 3
SELECT DISTINCT a, c FROM s
SELECT DISTINCT f FROM n
SELECT DISTINCT t FROM n LIMIT 3
SELECT DISTINCT IF(i = 1, i, t) FROM n
SELECT DISTINCT j.label FROM s JOIN j ON j.k = s.id
SELECT DISTINCT a.w FROM big a JOIN big b ON b.g = a.g WHERE a.id < 60
SELECT DISTINCT a.w FROM big a JOIN big b ON b.g = a.g WHERE a.id < 60 LIMIT 7, 3
SELECT DISTINCT b.g FROM big a JOIN big b ON b.g = a.g ORDER BY b.g LIMIT 5, 5
SELECT DISTINCT g, COUNT(*) FROM big GROUP BY g
SELECT DISTINCT COUNT(*) FROM big GROUP BY g
SELECT DISTINCT COUNT(*) FROM big GROUP BY w ORDER BY 1
SET SESSION tmp_table_size = DEFAULT
SET SESSION max_heap_table_size = DEFAULT
DROP DATABASE distinct_test
