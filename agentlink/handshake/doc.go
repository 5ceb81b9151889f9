// Package handshake is how the octo app and an agent bridge (`octo mcp`) prove to each other,
// over a fresh loopback connection, that both know the token in agent.json, without either one
// sending it. After it, the connection carries MCP JSON-RPC messages, one per line.
//
// The app listens on 127.0.0.1 on a random port and writes the port, the token (32 random
// bytes) and an instance id (16 random bytes, new at every start) to agent.json, which only the
// user can read (agentlink/appdata). Any local process can connect to the port; only one that
// can read the file can pass. Every line is a JSON object of at most MaxLine bytes, and the whole
// exchange must end within Timeout, else the connection is closed.
//
//  1. bridge → app: {"octo":"agent/1","nonce":Nc}
//     Nc is 32 fresh random bytes from the bridge. "agent/1" names this handshake, so a
//     later one can be told apart and refused clearly.
//  2. app → bridge: {"nonce":Ns,"instance":I,"proof":Pa}
//     Ns is 32 fresh random bytes from the app, I its instance id, and
//     Pa = HMAC-SHA256(key, "octo agent/1 app\n" + port + "\n" + I + "\n" + Nc + "\n" + Ns)
//  3. The bridge checks that I is agent.json's instance and Pa is right, else it closes without
//     a word. Then bridge → app: {"proof":Pb}, with
//     Pb = HMAC-SHA256(key, "octo agent/1 bridge\n" + port + "\n" + I + "\n" + Nc + "\n" + Ns)
//  4. The app checks Pb → {"ok":true}; else {"error":"authentication failed"}, and it closes.
//
// The key is the token's 32 bytes; the port is written in decimal; nonces and proofs are
// base64url without padding (appdata.Encoding, strict: one value, one text), and the HMAC is
// computed over the nonces' text as sent. Why each part is there:
//
//   - A fresh nonce from each side makes every proof good for one connection only: a proof
//     recorded from an earlier handshake (by whoever could watch loopback traffic) is worth
//     nothing, since the side checking it chose a new nonce the old proof does not cover.
//   - A different label for each direction ("app", "bridge") means neither proof can stand for
//     the other: a bridge cannot be made to accept its own proof reflected back, nor the app
//     its own. A bridge refuses an app's nonce equal to its own (Nc = Ns), and either side a
//     nonce that does not decode to 32 bytes.
//   - The port and instance bind the proofs to one run of the app at one address: a relay
//     listening on another port, or an app that is not the one agent.json names (a stale file
//     and a new process on its old port), fails the check instead of being trusted.
//   - Proofs are compared in constant time (hmac.Equal), so timing does not reveal how much of a
//     guess was right.
//   - The app proves first, so a bridge never proves anything to a process that has not shown
//     it knows the token: something squatting on a stale port learns nothing from a bridge.
//
// Every line is bounded (MaxLine) and the exchange timed (Timeout), so a client that sends a
// huge line, no newline, or nothing at all holds a connection for at most Timeout. A side sends
// nothing after its line until it has read the other's; bytes that arrive early are a protocol
// error on the app's side (Accept reads nothing past the proof). The app's side answers a
// malformed line with {"error": what is wrong} before closing, so a wrong client learns why;
// that tells nothing about the token.
//
// The package knows the two sides of this exchange and nothing of MCP or of the app.
package handshake
