package dev.idempotency.store.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.util.StreamUtils;

/**
 * The dedup table as the schema scripts shipped in the jar create it for one database: its columns,
 * its secondary indexes, the collation of its key columns, and the statement that adds each of them
 * to a table that lacks it. Read from the scripts themselves, so that the schema check and the
 * scripts cannot drift apart.
 */
final class ShippedSchema {

	static final String DIRECTORY = "dev/idempotency/store/jdbc/";

	/** The table name in the scripts, replaced by the configured one in every statement. */
	private static final String SCRIPT_TABLE = "idempotency_record";

	private static final Pattern CREATE_INDEX = Pattern
		.compile("CREATE INDEX (?:IF NOT EXISTS )?(\\w+) ON " + SCRIPT_TABLE + " \\(([^)]*)\\)", Pattern.CASE_INSENSITIVE);

	private static final Pattern INLINE_INDEX = Pattern.compile("INDEX (\\w+) \\(([^)]*)\\)", Pattern.CASE_INSENSITIVE);

	private static final Pattern ADD_COLUMN = Pattern.compile("ADD COLUMN (?:IF NOT EXISTS )?(\\w+)",
			Pattern.CASE_INSENSITIVE);

	private static final Pattern COLLATE = Pattern.compile("COLLATE (\\w+)", Pattern.CASE_INSENSITIVE);

	private final String platform;

	private final String tableName;

	/** Column name (lower case) to its definition in {@code CREATE TABLE}. */
	private final Map<String, String> columns = new LinkedHashMap<>();

	/** Column name (lower case) to the upgrade statement that adds it. */
	private final Map<String, String> addColumn = new LinkedHashMap<>();

	private final List<Index> indexes = new ArrayList<>();

	private ShippedSchema(String platform, String tableName) {
		this.platform = platform;
		this.tableName = tableName;
	}

	/**
	 * Reads the scripts of a platform.
	 * @param platform {@code postgresql}, {@code mysql}, {@code mariadb} or {@code h2}
	 * @param tableName the configured table name
	 * @return the shipped schema, or {@code null} when no script is shipped for the platform
	 */
	static @Nullable ShippedSchema of(String platform, String tableName) {
		ClassPathResource script = new ClassPathResource(scriptName(platform));
		if (!script.exists()) {
			return null;
		}
		ShippedSchema schema = new ShippedSchema(platform, tableName);
		for (String statement : statements(script)) {
			schema.read(statement);
		}
		ClassPathResource upgrade = new ClassPathResource(DIRECTORY + "schema-upgrade-0.2-" + platform + ".sql");
		for (String statement : statements(upgrade)) {
			Matcher column = ADD_COLUMN.matcher(statement);
			if (column.find()) {
				schema.addColumn.put(column.group(1).toLowerCase(Locale.ROOT), schema.named(statement));
			}
		}
		return schema;
	}

	static String scriptName(String platform) {
		return DIRECTORY + "schema-" + platform + ".sql";
	}

	String platform() {
		return this.platform;
	}

	List<String> columns() {
		return List.copyOf(this.columns.keySet());
	}

	List<Index> indexes() {
		return List.copyOf(this.indexes);
	}

	/**
	 * The statement that adds a missing column: the upgrade script's for the columns 0.2 added, else
	 * an {@code ALTER TABLE} with the column's definition.
	 */
	String addColumn(String column) {
		String upgrade = this.addColumn.get(column);
		return (upgrade != null) ? upgrade : "ALTER TABLE " + this.tableName + " ADD COLUMN " + this.columns.get(column);
	}

	/** The collation of the key columns, or {@code null} when the script sets none. */
	@Nullable String keyCollation() {
		Matcher collation = COLLATE.matcher(this.columns.getOrDefault("idempotency_key", ""));
		return collation.find() ? collation.group(1) : null;
	}

	/** The statement that gives the key columns the shipped definitions (and so their collation). */
	String modifyKeyColumns() {
		return "ALTER TABLE " + this.tableName + " MODIFY " + this.columns.get("namespace") + ", MODIFY "
				+ this.columns.get("idempotency_key");
	}

	private void read(String statement) {
		String upper = statement.toUpperCase(Locale.ROOT);
		if (upper.startsWith("CREATE TABLE")) {
			String body = statement.substring(statement.indexOf('(') + 1, statement.lastIndexOf(')'));
			for (String part : topLevelParts(body)) {
				String first = part.split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
				if (first.equals("INDEX") || first.equals("KEY")) {
					Matcher index = INLINE_INDEX.matcher(part);
					if (index.find()) {
						this.indexes.add(new Index(index.group(1).replace(SCRIPT_TABLE, this.tableName),
								columnList(index.group(2)), "CREATE INDEX " + index.group(1).replace(SCRIPT_TABLE,
										this.tableName) + " ON " + this.tableName + " (" + index.group(2) + ")"));
					}
				}
				else if (!first.equals("PRIMARY") && !first.equals("CONSTRAINT") && !first.equals("UNIQUE")) {
					this.columns.put(first.toLowerCase(Locale.ROOT), part);
				}
			}
			return;
		}
		Matcher index = CREATE_INDEX.matcher(statement);
		if (upper.startsWith("CREATE INDEX") && index.find()) {
			String name = index.group(1).replace(SCRIPT_TABLE, this.tableName);
			if (this.indexes.stream().noneMatch((known) -> known.name().equals(name))) {
				this.indexes.add(new Index(name, columnList(index.group(2)), named(statement)));
			}
		}
	}

	private String named(String statement) {
		return statement.replaceAll("\\b" + SCRIPT_TABLE, this.tableName);
	}

	private static List<String> columnList(String columns) {
		return Arrays.stream(columns.split(",")).map((column) -> column.trim().toLowerCase(Locale.ROOT)).toList();
	}

	/** Splits at the commas outside parentheses. */
	private static List<String> topLevelParts(String body) {
		List<String> parts = new ArrayList<>();
		int depth = 0;
		int start = 0;
		for (int i = 0; i < body.length(); i++) {
			char c = body.charAt(i);
			if (c == '(') {
				depth++;
			}
			else if (c == ')') {
				depth--;
			}
			else if (c == ',' && depth == 0) {
				parts.add(body.substring(start, i).trim());
				start = i + 1;
			}
		}
		parts.add(body.substring(start).trim());
		return parts;
	}

	/** The script's statements, comments dropped, whitespace collapsed. */
	private static List<String> statements(ClassPathResource script) {
		String text;
		try {
			text = StreamUtils.copyToString(script.getInputStream(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + script.getPath(), ex);
		}
		StringBuilder code = new StringBuilder();
		for (String line : text.split("\n")) {
			int comment = line.indexOf("--");
			code.append((comment >= 0) ? line.substring(0, comment) : line).append(' ');
		}
		return Arrays.stream(code.toString().split(";"))
			.map((statement) -> statement.replaceAll("\\s+", " ").replace("( ", "(").replace(" )", ")").trim())
			.filter((statement) -> !statement.isEmpty())
			.toList();
	}

	/**
	 * A secondary index of the shipped table.
	 * @param name its name
	 * @param columns its columns, in order, lower case
	 * @param createStatement the statement that creates it
	 */
	record Index(String name, List<String> columns, String createStatement) {

	}

}
