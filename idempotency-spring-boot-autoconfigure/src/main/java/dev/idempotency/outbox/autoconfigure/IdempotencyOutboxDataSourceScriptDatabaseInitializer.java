package dev.idempotency.outbox.autoconfigure;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.init.PropertiesBasedDataSourceScriptDatabaseInitializer;

/**
 * Creates the outbox table from the schema script of the database's platform, as
 * {@code idempotency.outbox.initialize-schema} says.
 *
 * @since 0.1.0
 */
public class IdempotencyOutboxDataSourceScriptDatabaseInitializer
		extends PropertiesBasedDataSourceScriptDatabaseInitializer<IdempotencyOutboxProperties> {

	public IdempotencyOutboxDataSourceScriptDatabaseInitializer(DataSource dataSource,
			IdempotencyOutboxProperties properties) {
		super(dataSource, properties);
	}

}
