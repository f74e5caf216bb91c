package dev.idempotency.sample;

import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Points transfers over HTTP: {@code POST /transfers} with an {@code Idempotency-Key} header writes
 * the transfer in the request's transaction together with the key; a retry with the same key gets
 * the first response back ({@code Idempotent-Replayed: true}) and writes nothing.
 */
@RestController
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class TransferController {

	private final JdbcTemplate jdbc;

	private final AtomicInteger executions = new AtomicInteger();

	public TransferController(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
		jdbc.execute("CREATE TABLE IF NOT EXISTS http_transfer (id BIGINT AUTO_INCREMENT PRIMARY KEY, "
				+ "reference VARCHAR(100) NOT NULL, user_id VARCHAR(100) NOT NULL, points INT NOT NULL)");
	}

	@PostMapping("/transfers")
	@Idempotent
	ResponseEntity<Transfer> transfer(@RequestBody TransferRequest request) {
		this.executions.incrementAndGet();
		this.jdbc.update("INSERT INTO http_transfer (reference, user_id, points) VALUES (?, ?, ?)",
				request.reference(), request.userId(), request.points());
		Transfer transfer = new Transfer(request.reference(), request.userId(), request.points());
		return ResponseEntity.created(URI.create("/transfers/" + request.reference())).body(transfer);
	}

	/** How many times the handler ran. */
	int executions() {
		return this.executions.get();
	}

	/** The transfer rows written for a reference. */
	int rows(String reference) {
		Integer rows = this.jdbc.queryForObject("SELECT COUNT(*) FROM http_transfer WHERE reference = ?",
				Integer.class, reference);
		return (rows != null) ? rows : 0;
	}

	public record TransferRequest(String reference, String userId, int points) {
	}

	public record Transfer(String reference, String userId, int points) {
	}

}
