package dev.idempotency.store.jdbc.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Native-image hints: the JDBC store's schema scripts, read from the class path at run time by
 * the schema initializer and the schema check, and the Flyway and Liquibase migrations an
 * application's own Flyway or Liquibase loads.
 */
class JdbcStoreRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("dev/idempotency/store/jdbc/*.sql");
		hints.resources().registerPattern("dev/idempotency/migration/**");
	}

}
