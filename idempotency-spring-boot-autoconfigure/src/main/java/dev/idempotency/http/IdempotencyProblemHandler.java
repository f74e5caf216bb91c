package dev.idempotency.http;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers an {@link IdempotencyProblemException} with its problem detail as
 * {@code application/problem+json}, whether or not the application enables Spring MVC's own problem
 * details. Ordered first, so that an application's catch-all handler does not turn the transport's
 * 400, 409 and 422 into a 500.
 *
 * @since 0.2.0
 */
@ControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class IdempotencyProblemHandler {

	/**
	 * The problem's response.
	 * @param ex the problem
	 * @return its status, headers and body
	 */
	@ExceptionHandler(IdempotencyProblemException.class)
	public ResponseEntity<ProblemDetail> handle(IdempotencyProblemException ex) {
		return ResponseEntity.status(ex.getStatusCode())
			.headers(ex.getHeaders())
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.body(ex.getBody());
	}

}
