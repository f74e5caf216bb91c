package dev.idempotency.outbox;

import java.util.regex.Pattern;

/**
 * Validates table names that are spliced into SQL, since they cannot be bind parameters.
 */
final class SqlIdentifier {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	private SqlIdentifier() {
	}

	static String requireValid(String tableName) {
		if (tableName == null || !IDENTIFIER.matcher(tableName).matches()) {
			throw new IllegalArgumentException("Table name '" + tableName + "' is not a plain SQL identifier "
					+ "(letters, digits and underscores, optionally schema-qualified, at most 63 characters each)");
		}
		return tableName;
	}

}
