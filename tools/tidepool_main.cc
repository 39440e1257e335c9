#include <cstdio>
int main() { std::puts("tidepool"); return 0; }
