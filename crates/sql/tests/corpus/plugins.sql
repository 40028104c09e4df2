-- information_schema.PLUGINS and ALL_PLUGINS, and SHOW PLUGINS: the plugins myriad has
-- (its storage engine, as SHOW ENGINES shows it, mysql_native_password and ed25519); MariaDB lists
-- many more, so the statements here ask about plugins both have or neither has.
SELECT plugin_name, plugin_status, plugin_type, plugin_library, plugin_library_version, plugin_maturity FROM information_schema.plugins WHERE plugin_name IN ('InnoDB', 'mysql_native_password') ORDER BY plugin_name
SELECT plugin_name, plugin_status, plugin_type, plugin_type_version FROM information_schema.all_plugins WHERE plugin_name = 'mysql_native_password'
SELECT COUNT(*) FROM information_schema.plugins WHERE plugin_name = 'no_such_plugin'
SELECT COUNT(*) FROM information_schema.plugins WHERE plugin_type = 'STORAGE ENGINE' AND plugin_name = 'InnoDB' AND plugin_status = 'ACTIVE'
SELECT COUNT(*) = 0 FROM INFORMATION_SCHEMA.PLUGINS WHERE PLUGIN_NAME = 'partition' AND PLUGIN_STATUS='ACTIVE'
SELECT column_name, column_type, is_nullable FROM information_schema.columns WHERE table_schema = 'information_schema' AND table_name = 'PLUGINS' ORDER BY ordinal_position
SELECT e.engine, p.plugin_status FROM information_schema.engines e JOIN information_schema.plugins p ON p.plugin_name = e.engine WHERE e.engine = 'InnoDB'
SHOW PLUGINS
SHOW PLUGINS LIKE 'InnoDB'
SELECT COUNT(*) FROM information_schema.system_variables WHERE variable_name = 'have_sanitizer' AND global_value LIKE 'MSAN%'
