package dev.idempotency.benchmarks.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * Runs one of the starter's schema scripts with its table renamed, so that a harness gets its own
 * copy of the shipped table (same columns, keys and indexes) instead of writing it again.
 */
public final class ShippedSchema {

	private ShippedSchema() {
	}

	public static void create(JdbcTemplate jdbc, String script, String table, String renamedTo) {
		try {
			String sql = new ClassPathResource(script).getContentAsString(StandardCharsets.UTF_8)
				.replace(table, renamedTo);
			new ResourceDatabasePopulator(new ByteArrayResource(sql.getBytes(StandardCharsets.UTF_8)))
				.execute(jdbc.getDataSource());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
