package dev.idempotency.migration;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A table as the database describes it, one line per fact, comparable between two databases: the
 * columns (position, type, size, nullability, default) and indexes from {@link DatabaseMetaData};
 * on PostgreSQL each index's and constraint's definition (partial indexes) and the storage options;
 * on MariaDB each column's type, character set and collation, and the table's engine and collation.
 */
final class TableShape {

	private TableShape() {
	}

	static List<String> of(IsolatedDatabase database, String table) throws SQLException {
		List<String> lines = new ArrayList<>();
		try (Connection connection = database.dataSource().getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			String catalog = connection.getCatalog();
			String schema = connection.getSchema();
			String name = database.stored(table);
			try (ResultSet rows = metaData.getColumns(catalog, schema, name, null)) {
				while (rows.next()) {
					lines.add("column " + rows.getInt("ORDINAL_POSITION") + " " + lower(rows.getString("COLUMN_NAME"))
							+ " " + rows.getString("TYPE_NAME") + "(" + rows.getInt("COLUMN_SIZE") + ","
							+ rows.getInt("DECIMAL_DIGITS") + ") nullable=" + rows.getString("IS_NULLABLE")
							+ " default=" + rows.getString("COLUMN_DEF") + " auto=" + rows.getString("IS_AUTOINCREMENT"));
				}
			}
			try (ResultSet rows = metaData.getPrimaryKeys(catalog, schema, name)) {
				while (rows.next()) {
					lines.add("primary key " + rows.getShort("KEY_SEQ") + " " + lower(rows.getString("COLUMN_NAME")));
				}
			}
			try (ResultSet rows = metaData.getIndexInfo(catalog, schema, name, false, false)) {
				while (rows.next()) {
					if (rows.getString("COLUMN_NAME") != null) {
						lines.add("index " + indexName(rows.getString("INDEX_NAME")) + " unique="
								+ !rows.getBoolean("NON_UNIQUE") + " " + rows.getShort("ORDINAL_POSITION") + " "
								+ lower(rows.getString("COLUMN_NAME")) + " " + rows.getString("ASC_OR_DESC"));
					}
				}
			}
		}
		JdbcTemplate jdbc = database.jdbc();
		if (database.dialect() == JdbcIdempotencyDialect.POSTGRESQL) {
			String schema = database.name() + ".";
			jdbc.query("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ?",
					(row) -> {
						lines.add("pg index " + row.getString(1).replace(schema, ""));
					}, table);
			jdbc.query("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = "
					+ "to_regclass(current_schema() || '.' || ?)", (row) -> {
						lines.add("pg constraint " + row.getString(1) + " " + row.getString(2));
					}, table);
			jdbc.query("SELECT coalesce(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = "
					+ "to_regclass(current_schema() || '.' || ?)", (row) -> {
						lines.add("pg options " + row.getString(1));
					}, table);
		}
		if (database.dialect() == JdbcIdempotencyDialect.MARIADB) {
			jdbc.query("SELECT COLUMN_NAME, COLUMN_TYPE, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_DEFAULT, "
					+ "IS_NULLABLE, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND "
					+ "TABLE_NAME = ?", (row) -> {
						lines.add("mariadb column " + row.getString(1) + " " + row.getString(2) + " charset="
								+ row.getString(3) + " collation=" + row.getString(4) + " default=" + row.getString(5)
								+ " nullable=" + row.getString(6) + " " + row.getString(7));
					}, table);
			jdbc.query("SELECT ENGINE, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
					+ "DATABASE() AND TABLE_NAME = ?", (row) -> {
						lines.add("mariadb table engine=" + row.getString(1) + " collation=" + row.getString(2));
					}, table);
			jdbc.query("SELECT INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE, INDEX_TYPE, SUB_PART FROM "
					+ "information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?", (row) -> {
						lines.add("mariadb index " + row.getString(1) + " " + row.getInt(2) + " " + row.getString(3)
								+ " non-unique=" + row.getInt(4) + " " + row.getString(5) + " part=" + row.getString(6));
					}, table);
		}
		return lines.stream().sorted().toList();
	}

	/** H2 names the index of a primary key or unique constraint with a counter: drop it. */
	private static String indexName(String name) {
		return lower(name).replaceAll("^primary_key_\\w+$", "primary_key").replaceAll("_index_\\w+$", "_index");
	}

	private static String lower(String name) {
		return name.toLowerCase(Locale.ROOT);
	}

}
