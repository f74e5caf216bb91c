package dev.idempotency.support.jdbc;

import java.util.regex.Pattern;

/**
 * Validates table names that are spliced into SQL, since they cannot be bind parameters. Shared by
 * the JDBC store and the outbox repository.
 *
 * @since 0.1.0
 */
public final class SqlIdentifier {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	private SqlIdentifier() {
	}

	/**
	 * Checks a table name.
	 * @param tableName the name, optionally schema-qualified
	 * @return the name, unchanged
	 * @throws IllegalArgumentException if it is not a plain SQL identifier
	 */
	public static String requireValid(String tableName) {
		if (tableName == null || !IDENTIFIER.matcher(tableName).matches()) {
			throw new IllegalArgumentException("Table name '" + tableName + "' is not a plain SQL identifier "
					+ "(letters, digits and underscores, optionally schema-qualified, at most 63 characters each)");
		}
		return tableName;
	}

}
