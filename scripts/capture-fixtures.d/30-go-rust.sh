# shellcheck shell=bash
# Sourced by scripts/capture-fixtures.sh (uses $SRC, $OUT, cargo_new and run()).
# Go: go test -v / -json / -race / fuzz, a panic with several goroutines. Rust: clippy, plain rustc.
# cargo-nextest is not packaged by Debian and crates.io is not reachable here, so it is not captured.

if command -v go >/dev/null; then
  export GOFLAGS=-mod=mod GOCACHE="$SRC/.gocache" GOPATH="$SRC/.gopath" GOTOOLCHAIN=local
  G="$SRC/goledger"
  mkdir -p "$G/ledger" "$G/parse" "$G/cmd/settle"
  printf 'module example.com/goledger\n\ngo 1.19\n' >"$G/go.mod"
  cat >"$G/ledger/ledger.go" <<'GO'
package ledger

import (
	"errors"
	"sync"
)

var ErrOverdraft = errors.New("overdraft")

type Account struct {
	ID      string
	Balance int64
}

type Ledger struct {
	mu       sync.Mutex
	accounts map[string]*Account
	Applied  int // counted without the lock: the race detector finds it
}

func New() *Ledger { return &Ledger{accounts: map[string]*Account{}} }

func (l *Ledger) Open(id string, balance int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.accounts[id] = &Account{ID: id, Balance: balance}
}

func (l *Ledger) Transfer(from, to string, cents int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	src, dst := l.accounts[from], l.accounts[to]
	if src.Balance < cents {
		return ErrOverdraft
	}
	src.Balance -= cents
	dst.Balance += cents
	return nil
}

func (l *Ledger) Apply(from, to string, cents int64) error {
	err := l.Transfer(from, to, cents)
	l.Applied++
	return err
}

func (l *Ledger) Balance(id string) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.accounts[id].Balance
}
GO
  cat >"$G/ledger/ledger_test.go" <<'GO'
package ledger

import (
	"sync"
	"testing"
)

func TestTransfer(t *testing.T) {
	cases := []struct {
		name          string
		amount        int64
		wantFrom      int64
		wantTo        int64
		wantOverdraft bool
	}{
		{"partial", 300, 700, 300, false},
		{"exact balance", 1000, 0, 1000, false},
		{"overdraft", 1001, 1000, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := New()
			l.Open("alice", 1000)
			l.Open("bob", 0)
			err := l.Transfer("alice", "bob", tc.amount)
			if (err != nil) != tc.wantOverdraft {
				t.Fatalf("Transfer(%d) error = %v, want overdraft %v", tc.amount, err, tc.wantOverdraft)
			}
			if got := l.Balance("alice"); got != tc.wantFrom {
				t.Errorf("alice balance = %d, want %d", got, tc.wantFrom)
			}
		})
	}
}

func TestTransferToUnknownAccount(t *testing.T) {
	l := New()
	l.Open("alice", 1000)
	if err := l.Transfer("alice", "mallory", 10); err == nil {
		t.Errorf("Transfer to unknown account succeeded")
	}
}

func TestConcurrentApply(t *testing.T) {
	l := New()
	l.Open("alice", 1_000_000)
	l.Open("bob", 0)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 100; k++ {
				_ = l.Apply("alice", "bob", 1)
			}
		}()
	}
	wg.Wait()
	if got := l.Balance("bob"); got != 800 {
		t.Errorf("bob balance = %d, want 800", got)
	}
}
GO
  # the "exact balance" case passes, the sub-test table reports a wrong expectation in "partial"
  sed -i 's/{"partial", 300, 700, 300, false}/{"partial", 300, 600, 300, false}/' "$G/ledger/ledger_test.go"
  cat >"$G/parse/amount.go" <<'GO'
package parse

import (
	"fmt"
	"strconv"
	"strings"
)

// Cents parses "12.34" into 1234. A bare "." is not rejected, and indexing the fraction then panics.
func Cents(s string) (int64, error) {
	s = strings.TrimSpace(s)
	whole, frac, found := strings.Cut(s, ".")
	if !found {
		n, err := strconv.ParseInt(whole, 10, 64)
		return n * 100, err
	}
	if frac[0] == '-' {
		return 0, fmt.Errorf("negative fraction in %q", s)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	return w*100 + f, err
}
GO
  cat >"$G/parse/amount_test.go" <<'GO'
package parse

import "testing"

func FuzzCents(f *testing.F) {
	f.Add("12.34")
	f.Add("7")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Cents(s)
	})
}
GO
  cat >"$G/cmd/settle/main.go" <<'GO'
package main

import (
	"fmt"
	"time"

	"example.com/goledger/ledger"
)

func settleBatch(l *ledger.Ledger, batch []string, done chan<- int) {
	n := 0
	for _, to := range batch {
		if err := l.Transfer("treasury", to, 100); err != nil {
			fmt.Println("skip", to, err)
			continue
		}
		n++
	}
	done <- n
}

func heartbeat(stop <-chan struct{}) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-stop:
			return
		}
	}
}

func main() {
	l := ledger.New()
	l.Open("treasury", 1_000)
	l.Open("acct-1", 0)
	stop := make(chan struct{})
	go heartbeat(stop)
	done := make(chan int)
	go settleBatch(l, []string{"acct-1"}, done)
	go settleBatch(l, []string{"acct-1", "acct-404"}, done)
	fmt.Println("settled", <-done+<-done)
	close(stop)
}
GO
  run go-test-v-subtests "$G" go test -v ./ledger/ -run 'TestTransfer$'
  run go-test-json "$G" go test -json ./ledger/ -run 'TestTransfer$'
  run go-test-race "$G" go test -race -count=1 ./ledger/ -run TestConcurrentApply
  run go-test-panic-nil-pointer "$G" go test ./ledger/ -run TestTransferToUnknownAccount
  run go-fuzz-crash "$G" go test ./parse/ -run '^$' -fuzz FuzzCents -fuzztime 60s
  run go-panic-goroutines "$G" env GOTRACEBACK=all go run ./cmd/settle
fi

# ---- clippy with -D warnings on a small crate of two modules, and a plain rustc type error
cargo_new tally
cat >"$SRC/tally/src/main.rs" <<'RS'
mod report;

fn main() {
    let words = vec![String::from("alpha"), String::from("beta")];
    println!("{}", report::summary(&words));
}
RS
cat >"$SRC/tally/src/report.rs" <<'RS'
pub fn summary(words: &Vec<String>) -> String {
    let mut longest = 0;
    for i in 0..words.len() {
        if words[i].len() > longest {
            longest = words[i].len();
        }
    }
    let total = words.len();
    if total == 0 {
        return String::from("empty");
    }
    return format!("{} words, longest {}", total, longest);
}
RS
(cd "$SRC/tally" && cargo build -q --color never >/dev/null 2>&1)
run rust-clippy-deny-warnings "$SRC/tally" cargo clippy --color never -- -D warnings

mkdir -p "$SRC/rsplain"
cat >"$SRC/rsplain/main.rs" <<'RS'
mod units;

fn main() {
    let d = units::Distance::meters(1200);
    let km: u32 = units::to_km(d);
    println!("{km} km");
}
RS
cat >"$SRC/rsplain/units.rs" <<'RS'
pub struct Distance(pub u64);

impl Distance {
    pub fn meters(m: u64) -> Self {
        Distance(m)
    }
}

pub fn to_km(d: Distance) -> f64 {
    d.0 as f64 / 1000.0
}
RS
run rustc-e0308-mismatched-types "$SRC/rsplain" rustc --color never --edition 2021 -o /dev/null main.rs
