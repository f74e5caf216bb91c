package dev.idempotency.benchmarks.http;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.support.LedgerTables;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The HTTP suite's application: one handler body behind two mappings, {@code POST /plain} in a plain
 * {@code @Transactional}, {@code POST /idempotent} with {@code @Idempotent} (the
 * {@code Idempotency-Key} header, the request's fingerprint, the stored response), and
 * {@code POST /hand}, the same handling written by hand in one {@code @Transactional} (insert-or-ignore
 * of the key with the body's SHA-256, the business writes, an {@code UPDATE} with the serialized
 * response; a key already present is answered from its row). All credit an account and add a ledger
 * row, and answer 201 with a Location and a small JSON body.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class HttpBenchApp {

	record Transfer(String reference, int account, long amount) {
	}

	record Receipt(String reference, int account, long amount) {
	}

	@RestController
	static class TransferController {

		private final JdbcTemplate jdbc;

		private final JsonMapper json;

		private final String insertKey;

		TransferController(JdbcTemplate jdbc, JsonMapper json) {
			this.jdbc = jdbc;
			this.json = json;
			this.insertKey = "INSERT " + (isPostgres(jdbc) ? "" : "IGNORE ") + "INTO " + HAND_KEYS
					+ " (idem_key, fingerprint) VALUES (?, ?)" + (isPostgres(jdbc) ? " ON CONFLICT DO NOTHING" : "");
		}

		@PostMapping("/plain")
		@Transactional
		ResponseEntity<Receipt> plain(@RequestBody Transfer transfer) {
			return apply(transfer);
		}

		@PostMapping("/idempotent")
		@Idempotent
		ResponseEntity<Receipt> idempotent(@RequestBody Transfer transfer) {
			return apply(transfer);
		}

		@PostMapping("/hand")
		@Transactional
		ResponseEntity<?> hand(@RequestHeader("Idempotency-Key") String key, @RequestBody byte[] body) {
			String fingerprint = sha256("POST /hand", body);
			if (this.jdbc.update(this.insertKey, key, fingerprint) == 0) {
				return replay(key, fingerprint);
			}
			ResponseEntity<Receipt> response = apply(this.json.readValue(body, Transfer.class));
			this.jdbc.update("UPDATE " + HAND_KEYS + " SET status = ?, location = ?, body = ? WHERE idem_key = ?",
					response.getStatusCode().value(), response.getHeaders().getFirst(HttpHeaders.LOCATION),
					this.json.writeValueAsString(response.getBody()), key);
			return response;
		}

		private ResponseEntity<?> replay(String key, String fingerprint) {
			List<ResponseEntity<?>> stored = this.jdbc.query(
					"SELECT fingerprint, status, location, body FROM " + HAND_KEYS + " WHERE idem_key = ?",
					(row, index) -> fingerprint.equals(row.getString(1))
							? ResponseEntity.status(row.getInt(2))
								.header(HttpHeaders.LOCATION, row.getString(3))
								.contentType(MediaType.APPLICATION_JSON)
								.body(row.getString(4))
							: ResponseEntity.status(HttpStatus.UNPROCESSABLE_CONTENT).build(),
					key);
			return stored.get(0);
		}

		private ResponseEntity<Receipt> apply(Transfer transfer) {
			this.jdbc.update("UPDATE bench_http_account SET balance = balance + ? WHERE id = ?", transfer.amount(),
					transfer.account());
			this.jdbc.update("INSERT INTO bench_http_ledger (msg_key, account_id, amount) VALUES (?, ?, ?)",
					transfer.reference(), transfer.account(), transfer.amount());
			return ResponseEntity.created(URI.create("/transfers/" + transfer.reference()))
				.body(new Receipt(transfer.reference(), transfer.account(), transfer.amount()));
		}

	}

	static final int ACCOUNTS = LedgerTables.ACCOUNTS;

	/** The hand-written variant's key table. */
	static final String HAND_KEYS = "bench_http_hand_key";

	static String handKeysDdl(boolean postgres) {
		return "CREATE TABLE " + HAND_KEYS + " (idem_key VARCHAR(255) PRIMARY KEY, fingerprint VARCHAR(64) NOT NULL, "
				+ "status INT, location VARCHAR(255), body " + (postgres ? "TEXT" : "MEDIUMTEXT") + ")"
				+ (postgres ? "" : " ENGINE = InnoDB");
	}

	private static boolean isPostgres(JdbcTemplate jdbc) {
		return Boolean.TRUE.equals(jdbc.execute((java.sql.Connection connection) -> connection.getMetaData()
			.getDatabaseProductName()
			.toLowerCase(java.util.Locale.ROOT)
			.contains("postgres")));
	}

	private static String sha256(String request, byte[] body) {
		try {
			MessageDigest digest = MessageDigest.getInstance("SHA-256");
			digest.update(request.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest.digest(body));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
