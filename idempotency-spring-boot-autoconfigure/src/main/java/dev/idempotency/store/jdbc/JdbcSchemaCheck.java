package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import javax.sql.DataSource;

import dev.idempotency.support.jdbc.DatabasePlatform;
import org.jspecify.annotations.Nullable;

/**
 * Compares the dedup table in the database with the one the shipped schema scripts create: the table,
 * its columns, the unique key on ({@code namespace}, {@code idempotency_key}) that decides a
 * duplicate, its secondary indexes and, on MySQL and MariaDB, a binary NO PAD collation of the key
 * columns (another collation merges keys that differ in case or trailing spaces, and the second
 * message is skipped unprocessed). Each difference comes with the statement that fixes it. Reads
 * only metadata; changes nothing.
 *
 * @since 0.2.0
 */
public final class JdbcSchemaCheck {

	private static final Set<String> KEY = Set.of("namespace", "idempotency_key");

	private final DataSource dataSource;

	private final JdbcIdempotencyDialect dialect;

	private final String tableName;

	/**
	 * Creates the check of one table.
	 * @param dataSource the database of the table
	 * @param dialect its dialect
	 * @param tableName the dedup table
	 */
	public JdbcSchemaCheck(DataSource dataSource, JdbcIdempotencyDialect dialect, String tableName) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.tableName = tableName;
	}

	/**
	 * Checks the table.
	 * @return the differences, empty when the table is as shipped
	 * @throws SQLException if the database cannot be asked
	 */
	public List<SchemaProblem> check() throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			String platform = platform(metaData);
			ShippedSchema shipped = (platform != null) ? ShippedSchema.of(platform, this.tableName) : null;
			String table = identifier(metaData, this.tableName);
			String catalog = connection.getCatalog();
			String schema = connection.getSchema();
			Set<String> columns = columns(metaData, catalog, schema, table);
			if (columns.isEmpty()) {
				String script = (shipped != null) ? "classpath:" + ShippedSchema.scriptName(platform)
						: "classpath:" + ShippedSchema.DIRECTORY + "schema-<platform>.sql (as a model)";
				return List.of(new SchemaProblem("table " + this.tableName + " not found"
						+ ((schema != null) ? " in schema " + schema : (catalog != null) ? " in database " + catalog : ""),
						"run " + script + ", or let the starter run it: idempotency.jdbc.initialize-schema=always"));
			}
			List<SchemaProblem> problems = new ArrayList<>();
			List<String> expected = (shipped != null) ? shipped.columns()
					: List.of("namespace", "idempotency_key", "status", "lease_until", "created_at", "expires_at");
			for (String column : expected) {
				if (!columns.contains(column)) {
					problems.add(new SchemaProblem("column " + column + " missing",
							(shipped != null) ? shipped.addColumn(column) : "see the shipped schema scripts"));
				}
			}
			Map<String, List<String>> indexes = indexes(metaData, catalog, schema, table);
			if (!hasUniqueKey(metaData, catalog, schema, table, indexes)) {
				problems.add(new SchemaProblem(
						"no primary key or unique index on exactly (namespace, idempotency_key): nothing stops two "
								+ "claims of one key",
						"ALTER TABLE " + this.tableName + " ADD PRIMARY KEY (namespace, idempotency_key)"));
			}
			if (shipped != null) {
				for (ShippedSchema.Index index : shipped.indexes()) {
					if (indexes.values().stream().noneMatch((found) -> startsWith(found, index.columns()))) {
						problems.add(new SchemaProblem("index " + index.name() + " on " + index.columns() + " missing",
								index.createStatement()));
					}
				}
				if (shipped.keyCollation() != null) {
					keyCollationProblem(connection, table, shipped).ifPresent(problems::add);
				}
			}
			return problems;
		}
	}

	private @Nullable String platform(DatabaseMetaData metaData) throws SQLException {
		return switch (this.dialect.platform()) {
			case POSTGRESQL -> "postgresql";
			case MYSQL -> "mysql";
			case MARIADB -> "mariadb";
			case GENERIC -> metaData.getDatabaseProductName().toLowerCase(Locale.ROOT).contains("h2") ? "h2" : null;
		};
	}

	private static String identifier(DatabaseMetaData metaData, String name) throws SQLException {
		if (metaData.storesUpperCaseIdentifiers()) {
			return name.toUpperCase(Locale.ROOT);
		}
		return metaData.storesLowerCaseIdentifiers() ? name.toLowerCase(Locale.ROOT) : name;
	}

	private static Set<String> columns(DatabaseMetaData metaData, @Nullable String catalog, @Nullable String schema,
			String table) throws SQLException {
		Set<String> columns = new LinkedHashSet<>();
		try (ResultSet rows = metaData.getColumns(catalog, schema, table, null)) {
			while (rows.next()) {
				columns.add(rows.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
			}
		}
		return columns;
	}

	/** Index name to its columns in order; unique indexes are named with a {@code unique:} prefix. */
	private static Map<String, List<String>> indexes(DatabaseMetaData metaData, @Nullable String catalog,
			@Nullable String schema, String table) throws SQLException {
		Map<String, TreeMap<Integer, String>> byName = new LinkedHashMap<>();
		try (ResultSet rows = metaData.getIndexInfo(catalog, schema, table, false, true)) {
			while (rows.next()) {
				String name = rows.getString("INDEX_NAME");
				String column = rows.getString("COLUMN_NAME");
				if (name == null || column == null) {
					continue;
				}
				String key = (rows.getBoolean("NON_UNIQUE") ? "" : "unique:") + name;
				byName.computeIfAbsent(key, (ignored) -> new TreeMap<>())
					.put((int) rows.getShort("ORDINAL_POSITION"), column.toLowerCase(Locale.ROOT));
			}
		}
		Map<String, List<String>> indexes = new LinkedHashMap<>();
		byName.forEach((name, columns) -> indexes.put(name, List.copyOf(columns.values())));
		return indexes;
	}

	private static boolean hasUniqueKey(DatabaseMetaData metaData, @Nullable String catalog, @Nullable String schema,
			String table, Map<String, List<String>> indexes) throws SQLException {
		Set<String> primaryKey = new LinkedHashSet<>();
		try (ResultSet rows = metaData.getPrimaryKeys(catalog, schema, table)) {
			while (rows.next()) {
				primaryKey.add(rows.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
			}
		}
		return primaryKey.equals(KEY) || indexes.entrySet()
			.stream()
			.anyMatch((index) -> index.getKey().startsWith("unique:") && Set.copyOf(index.getValue()).equals(KEY)
					&& index.getValue().size() == KEY.size());
	}

	private static boolean startsWith(List<String> columns, List<String> prefix) {
		return columns.size() >= prefix.size() && columns.subList(0, prefix.size()).equals(prefix);
	}

	/**
	 * On MySQL and MariaDB: a key column whose collation is not binary (case- or accent-insensitive)
	 * or pads with spaces merges distinct keys.
	 */
	private Optional<SchemaProblem> keyCollationProblem(Connection connection, String table,
			ShippedSchema shipped) throws SQLException {
		List<String> wrong = new ArrayList<>();
		try (PreparedStatement query = connection.prepareStatement("SELECT COLUMN_NAME, COLLATION_NAME FROM "
				+ "information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? "
				+ "AND COLUMN_NAME IN ('namespace', 'idempotency_key')")) {
			query.setString(1, table);
			try (ResultSet rows = query.executeQuery()) {
				while (rows.next()) {
					String collation = rows.getString(2);
					if (collation != null && !exactAndNoPad(collation)) {
						wrong.add(rows.getString(1) + " " + collation);
					}
				}
			}
		}
		if (wrong.isEmpty()) {
			return Optional.empty();
		}
		return Optional.of(new SchemaProblem("key columns with a collation that merges distinct keys (case, "
				+ "accents or trailing spaces): " + String.join(", ", wrong) + "; the shipped collation is "
				+ shipped.keyCollation(), shipped.modifyKeyColumns()));
	}

	/**
	 * Binary or case- and accent-sensitive, and NO PAD: MariaDB names NO PAD collations
	 * {@code *_nopad_*}; MySQL's {@code *_0900_*} collations are NO PAD.
	 */
	static boolean exactAndNoPad(String collation) {
		String name = collation.toLowerCase(Locale.ROOT);
		if (name.equals("binary")) {
			return true;
		}
		boolean exact = name.endsWith("_bin") || name.endsWith("_as_cs");
		boolean noPad = name.contains("_nopad_") || name.contains("_0900_");
		return exact && noPad;
	}

	/**
	 * One difference between the table and the shipped one.
	 * @param problem what is wrong
	 * @param fix the statement (or step) that fixes it
	 */
	public record SchemaProblem(String problem, String fix) {

		@Override
		public String toString() {
			return this.problem + "; fix: " + this.fix;
		}

	}

}
