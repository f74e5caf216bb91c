package dev.idempotency.store.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.util.StreamUtils;

/**
 * The dedup table as the schema scripts shipped in the jar create it for one database: its columns,
 * its secondary indexes, the collation of its key columns, and the statement that adds each of them
 * to a table that lacks it. Read from the scripts themselves, so that the schema check and the
 * scripts cannot drift apart. The scripts of a platform are parsed once per class loader and kept,
 * immutable; each instance only applies the configured table name.
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

	/** Platform to its parsed scripts; empty when no script is shipped for it. */
	private static final ConcurrentMap<String, Optional<Scripts>> SCRIPTS = new ConcurrentHashMap<>();

	private final String platform;

	private final String tableName;

	private final Scripts scripts;

	private final List<Index> indexes;

	private ShippedSchema(String platform, String tableName, Scripts scripts) {
		this.platform = platform;
		this.tableName = tableName;
		this.scripts = scripts;
		List<Index> indexes = new ArrayList<>();
		for (ScriptIndex scriptIndex : scripts.indexes()) {
			Index index = scriptIndex.named(tableName);
			// a script may create one index twice (IF NOT EXISTS, for tables of an earlier version)
			if (scriptIndex.inline() || indexes.stream().noneMatch((known) -> known.name().equals(index.name()))) {
				indexes.add(index);
			}
		}
		this.indexes = List.copyOf(indexes);
	}

	/**
	 * The scripts of a platform, with the configured table name.
	 * @param platform {@code postgresql}, {@code mysql}, {@code mariadb} or {@code h2}
	 * @param tableName the configured table name
	 * @return the shipped schema, or {@code null} when no script is shipped for the platform
	 */
	static @Nullable ShippedSchema of(String platform, String tableName) {
		return scripts(platform).map((scripts) -> new ShippedSchema(platform, tableName, scripts)).orElse(null);
	}

	/** The parsed scripts of a platform: the same instance on every call. */
	static Optional<Scripts> scripts(String platform) {
		return SCRIPTS.computeIfAbsent(platform, ShippedSchema::parse);
	}

	private static Optional<Scripts> parse(String platform) {
		ClassPathResource script = new ClassPathResource(scriptName(platform));
		if (!script.exists()) {
			return Optional.empty();
		}
		Map<String, String> columns = new LinkedHashMap<>();
		List<ScriptIndex> indexes = new ArrayList<>();
		for (String statement : statements(script)) {
			read(statement, columns, indexes);
		}
		Map<String, String> addColumn = new LinkedHashMap<>();
		ClassPathResource upgrade = new ClassPathResource(DIRECTORY + "schema-upgrade-0.2-" + platform + ".sql");
		for (String statement : statements(upgrade)) {
			Matcher column = ADD_COLUMN.matcher(statement);
			if (column.find()) {
				addColumn.put(column.group(1).toLowerCase(Locale.ROOT), statement);
			}
		}
		return Optional.of(new Scripts(Collections.unmodifiableMap(columns), Collections.unmodifiableMap(addColumn),
				List.copyOf(indexes)));
	}

	static String scriptName(String platform) {
		return DIRECTORY + "schema-" + platform + ".sql";
	}

	String platform() {
		return this.platform;
	}

	List<String> columns() {
		return List.copyOf(this.scripts.columns().keySet());
	}

	List<Index> indexes() {
		return this.indexes;
	}

	/**
	 * The statement that adds a missing column: the upgrade script's for the columns 0.2 added, else
	 * an {@code ALTER TABLE} with the column's definition.
	 */
	String addColumn(String column) {
		String upgrade = this.scripts.addColumn().get(column);
		return (upgrade != null) ? named(upgrade, this.tableName)
				: "ALTER TABLE " + this.tableName + " ADD COLUMN " + this.scripts.columns().get(column);
	}

	/** The collation of the key columns, or {@code null} when the script sets none. */
	@Nullable String keyCollation() {
		Matcher collation = COLLATE.matcher(this.scripts.columns().getOrDefault("idempotency_key", ""));
		return collation.find() ? collation.group(1) : null;
	}

	/** The statement that gives the key columns the shipped definitions (and so their collation). */
	String modifyKeyColumns() {
		return "ALTER TABLE " + this.tableName + " MODIFY " + this.scripts.columns().get("namespace") + ", MODIFY "
				+ this.scripts.columns().get("idempotency_key");
	}

	private static void read(String statement, Map<String, String> columns, List<ScriptIndex> indexes) {
		String upper = statement.toUpperCase(Locale.ROOT);
		if (upper.startsWith("CREATE TABLE")) {
			String body = statement.substring(statement.indexOf('(') + 1, statement.lastIndexOf(')'));
			for (String part : topLevelParts(body)) {
				String first = part.split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
				if (first.equals("INDEX") || first.equals("KEY")) {
					Matcher index = INLINE_INDEX.matcher(part);
					if (index.find()) {
						indexes.add(new ScriptIndex(index.group(1), columnList(index.group(2)), index.group(2), true));
					}
				}
				else if (!first.equals("PRIMARY") && !first.equals("CONSTRAINT") && !first.equals("UNIQUE")) {
					columns.put(first.toLowerCase(Locale.ROOT), part);
				}
			}
			return;
		}
		Matcher index = CREATE_INDEX.matcher(statement);
		if (upper.startsWith("CREATE INDEX") && index.find()) {
			indexes.add(new ScriptIndex(index.group(1), columnList(index.group(2)), statement, false));
		}
	}

	private static String named(String statement, String tableName) {
		return statement.replaceAll("\\b" + SCRIPT_TABLE, tableName);
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

	/**
	 * What the scripts of one platform say, with the table name of the scripts.
	 * @param columns column name (lower case) to its definition in {@code CREATE TABLE}, in order
	 * @param addColumn column name (lower case) to the upgrade statement that adds it
	 * @param indexes the secondary indexes, in the scripts' order
	 */
	record Scripts(Map<String, String> columns, Map<String, String> addColumn, List<ScriptIndex> indexes) {

	}

	/**
	 * A secondary index as a script declares it.
	 * @param name its name in the script
	 * @param columns its columns, in order, lower case
	 * @param source the column list of an index inside {@code CREATE TABLE}, else the whole
	 * {@code CREATE INDEX} statement
	 * @param inline whether {@code CREATE TABLE} declares it
	 */
	record ScriptIndex(String name, List<String> columns, String source, boolean inline) {

		Index named(String tableName) {
			String name = this.name.replace(SCRIPT_TABLE, tableName);
			String create = this.inline ? "CREATE INDEX " + name + " ON " + tableName + " (" + this.source + ")"
					: ShippedSchema.named(this.source, tableName);
			return new Index(name, this.columns, create);
		}

	}

}
