package dev.idempotency.store.jdbc.autoconfigure;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.init.PropertiesBasedDataSourceScriptDatabaseInitializer;

/**
 * Creates the dedup table from the schema script of the database's platform, as
 * {@code idempotency.jdbc.initialize-schema} says.
 *
 * @since 0.1.0
 */
public class IdempotencyJdbcDataSourceScriptDatabaseInitializer
		extends PropertiesBasedDataSourceScriptDatabaseInitializer<IdempotencyJdbcProperties> {

	public IdempotencyJdbcDataSourceScriptDatabaseInitializer(DataSource dataSource,
			IdempotencyJdbcProperties properties) {
		super(dataSource, properties);
	}

}
