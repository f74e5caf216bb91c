package dev.idempotency.benchmarks.http;

import java.net.URI;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.support.LedgerTables;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The HTTP suite's application: one handler body behind two mappings, {@code POST /plain} in a plain
 * {@code @Transactional} and {@code POST /idempotent} with {@code @Idempotent} (the
 * {@code Idempotency-Key} header, the request's fingerprint, the stored response). Both credit an
 * account and add a ledger row, and answer 201 with a Location and a small JSON body.
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

		TransferController(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
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

}
